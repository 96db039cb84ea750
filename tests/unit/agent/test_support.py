"""The shared test servers behave like the real things they stand in for."""

from __future__ import annotations

import urllib.parse
import urllib.request

import pytest

from tests.support.llm_server import conversation_error, estimate_tokens
from tests.support.policies import elements, find_ref, latest_observation
from tests.support.sites import PRODUCTS, TestSite, cheapest

# Verbatim compact snapshot of /form (workers/browser/observe/compact.py format).
FORM_SNAPSHOT = """# Contact us
== form ==
[4:2] textbox "Full name" required
[4:3] textbox "Email" value="a@b.c" required
[4:4] combobox "Topic" value="General question"
[4:7] button "Send \\"now\\"" disabled"""


def test_find_ref_parses_the_compact_snapshot_format() -> None:
    assert find_ref(FORM_SNAPSHOT, "textbox", "Email") == "4:3"
    assert find_ref(FORM_SNAPSHOT, "combobox", "topic") == "4:4"
    assert find_ref(FORM_SNAPSHOT, "button", 'Send "now"', exact=True) == "4:7"
    assert [e.role for e in elements(FORM_SNAPSHOT)] == ["textbox", "textbox", "combobox", "button"]
    with pytest.raises(LookupError):
        find_ref(FORM_SNAPSHOT, "link", "Email")


def test_latest_observation_reads_the_last_page_block() -> None:
    def page(text: str) -> dict:
        block = f'<page_content untrusted="true">\n{text}\n</page_content>'
        return {"role": "user", "content": block}

    request = {"messages": [page("old"), {"role": "assistant", "content": ""}, page("new")]}
    assert latest_observation(request) == "new"


def test_conversation_checks_match_the_openai_rules() -> None:
    call = {"id": "a", "type": "function", "function": {"name": "click", "arguments": "{}"}}
    ok = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "a", "content": "{}"},
        {"role": "user", "content": "y"},
    ]
    assert conversation_error(ok) is None
    assert "no tool message" in str(conversation_error(ok[:2] + ok[3:]))
    assert "does not answer" in str(conversation_error([ok[0], ok[2]]))
    assert estimate_tokens("abcde") == 2


def test_sites_serve_shop_and_echo_the_form() -> None:
    with TestSite() as site:
        shop = urllib.request.urlopen(site.url("/shop")).read().decode()
        assert all(p.price in shop and f"View {p.name}" in shop for p in PRODUCTS)
        best = cheapest()
        detail = urllib.request.urlopen(site.url(f"/shop/product/{best.slug}")).read().decode()
        assert best.price in detail
        body = urllib.parse.urlencode({"name": "Ann <b>", "topic": "order"}).encode()
        result = urllib.request.urlopen(site.url("/form/submit"), data=body).read().decode()
        assert "Ann &lt;b&gt;" in result and "1001" in result
        assert site.submissions == [{"name": "Ann <b>", "topic": "order"}]
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(site.url("/nope"))
    assert site.paths[:2] == ["/shop", f"/shop/product/{best.slug}"]

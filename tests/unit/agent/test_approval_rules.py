"""The sensitive-action rules (workers/agent/people/approvals.py, seed 003 §8.4.1/§8.4.3): what
needs a person and, as important, what does not."""

from __future__ import annotations

import pytest

from workers.agent.people.approvals import describe, sensitivity, signature, steps_of
from workers.agent.protocols import Action, ActionTarget

PAGE = "https://shop.example/account"


def button(name: str, **kw: object) -> ActionTarget:
    return ActionTarget(page_url=PAGE, role="button", tag="button", name=name, **kw)  # type: ignore[arg-type]


CLICK = Action("click", {"ref": "1:1"})


@pytest.mark.parametrize(
    "name",
    [
        "Delete account",
        "Remove item",
        "Request refund",
        "Transfer funds",
        "Pay now",
        "Purchase",
        "Buy it now",
        "Place your order",
        "Send",
        "Post comment",
        "Publish",
        "Unsubscribe",
        "Change password",
        "Close my account",
        "Cancel subscription",
    ],
)
def test_clicks_on_irreversible_verbs_need_a_person(name: str) -> None:
    found = sensitivity(CLICK, button(name))
    assert found is not None
    assert found.kind == "sensitive_action" and found.rule == "keyword"
    assert name in found.element and name in found.reason


@pytest.mark.parametrize(
    "name", ["Next page", "Search", "Log in", "Add filter", "Posts", "Sender details", "Show more"]
)
def test_ordinary_clicks_pass(name: str) -> None:
    assert sensitivity(CLICK, button(name)) is None


def test_an_aria_label_cannot_hide_the_verb() -> None:
    """The inspector reports the aria-label and the visible text together."""
    assert sensitivity(CLICK, button("Continue Delete everything")) is not None


def test_form_action_path_and_labels() -> None:
    submit = button(
        "Continue",
        submits=True,
        form_action="https://shop.example/checkout/pay",
        form_method="post",
    )
    found = sensitivity(CLICK, submit)
    assert found is not None and found.rule == "form_action" and "/checkout/pay" in found.reason
    labelled = button(
        "OK", submits=True, form_action=PAGE, form_method="post", form_text="Transfer money"
    )
    found = sensitivity(CLICK, labelled)
    assert found is not None and found.rule == "keyword"
    # a non-submitting button inside such a form is not a submit
    assert sensitivity(CLICK, button("OK", form_action="https://shop.example/pay")) is None


def test_cross_origin_form_submit() -> None:
    submit = button("Continue", submits=True, form_action="https://collector.evil/form")
    found = sensitivity(CLICK, submit)
    assert found is not None and found.rule == "cross_origin" and "collector.evil" in found.reason
    same = button("Continue", submits=True, form_action="https://shop.example/search")
    assert sensitivity(CLICK, same) is None
    other_port = button("Continue", submits=True, form_action="https://shop.example:8443/x")
    assert sensitivity(CLICK, other_port) is not None


def test_enter_and_typed_submit_use_the_forms_default_button() -> None:
    field = ActionTarget(
        page_url=PAGE,
        role="textbox",
        tag="input",
        name="Message",
        input_type="text",
        form_action=PAGE,
        form_method="post",
        form_text="Send message",
    )
    assert sensitivity(Action("press_key", {"key": "Enter"}), field) is not None
    assert sensitivity(Action("type", {"ref": "1:2", "text": "hi", "submit": True}), field)
    assert sensitivity(Action("type", {"ref": "1:2", "text": "hi"}), field) is None
    assert sensitivity(Action("press_key", {"key": "Tab"}), field) is None
    assert sensitivity(Action("press_key", {"key": "Enter", "action": "up"}), field) is None
    search = ActionTarget(
        page_url=PAGE, role="textbox", tag="input", name="q", form_action=PAGE, form_text="Search"
    )
    assert sensitivity(Action("press_key", {"key": "Enter"}), search) is None


def test_password_entry_is_a_login_request() -> None:
    password = ActionTarget(
        page_url=PAGE, role="textbox", tag="input", name="Password", input_type="password"
    )
    found = sensitivity(Action("type", {"ref": "1:3", "text": "<secret:pw>"}), password)
    assert found is not None and found.kind == "login" and found.rule == "credential"
    assert "<secret:pw>" in found.reason  # the approver sees which secret, never a value
    literal = sensitivity(Action("type", {"ref": "1:3", "text": "hunter2"}), password)
    assert literal is not None and "hunter2" not in literal.reason + literal.element
    plain = ActionTarget(page_url=PAGE, role="textbox", tag="input", name="Email")
    assert sensitivity(Action("type", {"ref": "1:3", "text": "a@b.c"}), plain) is None
    # clicking into a password field is not entering a credential
    assert sensitivity(CLICK, password) is None


def test_downloads() -> None:
    link = ActionTarget(page_url=PAGE, role="link", tag="a", name="Get it", href=PAGE + "/a.pdf")
    assert sensitivity(CLICK, link) is None
    attr = ActionTarget(**{**link.__dict__, "download": True})
    found = sensitivity(CLICK, attr)
    assert found is not None and found.rule == "download"
    exe = ActionTarget(**{**link.__dict__, "href": "https://cdn.example/setup.EXE?x=1"})
    found = sensitivity(CLICK, exe)
    assert found is not None and "setup.exe" in found.reason.lower()


def test_no_target_no_rule() -> None:
    assert sensitivity(CLICK, None) is None


def test_bulk_steps_and_signature() -> None:
    bulk = Action(
        "bulk",
        {
            "actions": [
                {"tool": "type", "args": {"ref": "1:1", "text": "x"}},
                {"tool": "click", "args": {"ref": "1:2"}},
            ]
        },
    )
    assert [a.name for a in steps_of(bulk)] == ["type", "click"]
    assert list(steps_of(CLICK)) == [CLICK]
    a = signature(CLICK, button("Delete"))
    assert a == signature(
        CLICK, ActionTarget(**{**button("Delete").__dict__, "page_url": PAGE + "#x"})
    )
    assert a != signature(CLICK, button("Remove"))
    assert describe(button("  Delete\n account ")) == 'button "Delete account"'


def test_enter_or_space_on_a_focused_button_is_a_click() -> None:
    delete = button("Delete account")
    for key in ("Enter", " ", "Space"):
        found = sensitivity(Action("press_key", {"key": key}), delete)
        assert found is not None and found.rule == "keyword", key
    assert sensitivity(Action("press_key", {"key": "Tab"}), delete) is None
    assert sensitivity(Action("press_key", {"key": "Space"}), button("Next")) is None
    field = ActionTarget(page_url=PAGE, role="textbox", name="Delete reason")
    assert sensitivity(Action("press_key", {"key": "Space"}), field) is None


def test_page_script_needs_a_person() -> None:
    run = Action("evaluate_script", {"script": "document.querySelector('#x').click()"})
    found = sensitivity(run, None)
    assert found is not None and found.rule == "script" and "#x" in found.reason


def test_an_opening_verb_needs_evidence_that_something_goes_out() -> None:
    """issue 26 item 13 (relay 2026-11-27 finding 6): an in-page "Share" (no form, no typed
    text) opens or toggles something in the page; with a form or typed recipients it sends."""
    span = ActionTarget(page_url=PAGE, tag="span", name="Share")
    assert sensitivity(CLICK, span) is None
    assert sensitivity(CLICK, button("Reply")) is None
    typed = sensitivity(CLICK, button("Share", composed=True))
    assert typed is not None and typed.rule == "keyword"
    in_form = button("Reply", form_action="https://shop.example/comments", form_method="post")
    assert sensitivity(CLICK, in_form) is not None
    assert sensitivity(CLICK, button("Send")) is not None  # a committing verb still needs a person

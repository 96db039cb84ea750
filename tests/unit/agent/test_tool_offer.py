"""Tools by need (issue 22): a core set every call, the rest when the page, the task or a tool
result calls for them, or through `more_tools`; the block only grows, never reorders."""

from __future__ import annotations

from workers.agent.people.task_profiles import allowed_tools
from workers.agent.tools import TOOLS, worker_tools
from workers.agent.tools.offer import CORE, MORE_TOOLS, ToolOffer


def names(tools: tuple[dict, ...]) -> list[str]:
    return [t["function"]["name"] for t in tools]


def test_the_core_set_is_offered_on_a_plain_page() -> None:
    offer = ToolOffer(instruction="Click on the OK button.")
    offered = names(offer.tools('[1:1] button "OK"'))
    assert set(offered) == set(CORE)
    assert {"click", "type", "press_key", "navigate"} <= set(offered)
    assert "select_option" not in offered  # with the first dropdown (issue 31 item 3)
    assert "scroll" not in offered  # with a page taller than the viewport
    assert {"read_text", "bulk", "done", MORE_TOOLS} <= set(offered)
    assert "upload_file" not in offered and "tabs" not in offered and "drag" not in offered


def test_the_page_and_the_task_add_what_they_call_for() -> None:
    offer = ToolOffer(instruction="Download the invoice and tell me its total.")
    assert "read_download" in names(offer.tools('[1:1] link "Invoice"'))
    page = '[2:1] combobox "Country"\n[2:2] button "Upload CV"\n[refs 40-90 trimmed: list]'
    grown = names(offer.tools(page))
    assert {"choose_option", "get_dropdown_options", "upload_file", "snapshot"} <= set(grown)
    assert "select_option" in grown
    attached = ToolOffer(instruction="apply\n\nFiles attached to this task (upload_file takes...")
    assert "upload_file" in names(attached.tools(""))


def test_scroll_joins_with_a_page_taller_than_the_viewport_or_a_task_that_names_it() -> None:
    """Issue 31 item 3: scroll left the core set (a page that fits the viewport has nothing to
    scroll to) to pay for naming every tool in more_tools."""
    offer = ToolOffer(instruction="Click on the OK button.")
    assert "scroll" not in names(offer.tools('[1:1] button "OK"'))
    tall = '[viewport shows 0-800px of 2400px page height]\n[1:1] button "OK"'
    assert "scroll" in names(offer.tools(tall))
    below = ToolOffer(instruction="x")
    page = '[1:1] link "A"\n[below viewport: 40 elements incl. "Next"]'
    assert "scroll" in names(below.tools(page))
    assert "scroll" in names(ToolOffer(instruction="Scroll to the footer").tools(""))
    assert "scroll" in ToolOffer(instruction="x").more_tools(()).reason


def test_the_block_grows_and_never_reorders() -> None:
    offer = ToolOffer(instruction="Click on the OK button.")
    first = names(offer.tools('[1:1] button "OK"'))
    second = names(offer.tools('[2:1] slider value="3"\n[2:2] button "OK"'))
    assert second[: len(first)] == first and len(second) > len(first)
    third = names(offer.tools('[3:1] button "OK"'))  # the slider is gone: nothing is taken away
    assert third == second


def test_more_tools_lists_the_rest_and_enables_by_name() -> None:
    offer = ToolOffer(instruction="x")
    offer.tools("")
    listing = offer.more_tools(())
    assert listing.success and "tabs:" in listing.reason and "click:" not in listing.reason
    enabled = offer.more_tools(("tabs", "nonsense"))
    assert enabled.success and enabled.data["enabled"] == ["tabs"]
    assert "nonsense" in enabled.reason
    assert names(offer.tools(""))[-1] == "tabs"


def test_tools_named_in_a_result_are_enabled() -> None:
    offer = ToolOffer(instruction="x")
    offer.tools("")
    offer.enable_mentioned(["saved report.pdf; read it with read_download name='report.pdf'"])
    offer.enable_mentioned(["type the text again", "scroll and wait"])  # plain words are not
    assert names(offer.tools(""))[-1] == "read_download"
    assert "wait" not in names(offer.tools(""))


def test_profiles_and_opt_ins_still_restrict_the_offer() -> None:
    offer = ToolOffer(instruction="download it", only=allowed_tools("assistant"))
    offered = set(names(offer.tools('[1:1] combobox "x"\n[1:2] slider')))
    assert not offered & {"click", "type", "press_key", "choose_option", "drag"}
    assert {"read_text", "done", "read_download"} <= offered
    assert not offer.more_tools(("click",)).data["enabled"]
    assert not offer.allows("click") and offer.allows("read_text")
    assert "evaluate_script" not in names(ToolOffer(instruction="x").tools(""))
    assert "evaluate_script" in names(ToolOffer(instruction="x", allow_scripts=True).tools(""))
    assert "look" in names(ToolOffer(instruction="x", vision=True).tools(""))
    assert not ToolOffer(instruction="x").allows("look")


def test_every_tool_mode_is_the_whole_registry_in_registry_order() -> None:
    offer = ToolOffer(instruction="x", every=True)
    assert names(offer.tools("")) == [n for n in names(worker_tools()) if n != MORE_TOOLS]
    assert MORE_TOOLS in TOOLS and MORE_TOOLS not in names(offer.tools(""))


async def test_the_loop_grows_the_offer_through_more_tools_and_unoffered_calls() -> None:
    import time

    from workers.agent.loop.loop import run_agent
    from workers.agent.protocols import AgentTask
    from workers.agent.testing import BRAIN_SIDE, FakeBrowser, FakeLLM, RecordingSink, reply

    page = {"http://a.test/": [("button", "OK", None)]}
    llm = FakeLLM(
        [
            reply(("more_tools", {})),
            reply(("more_tools", {"enable": ["tabs"]})),
            reply(("hover", {"ref": "1:1"})),  # not offered, but the task may use it
            reply(("done", {"answer": "ok", "success": True})),
        ],
        BRAIN_SIDE,
    )
    task = AgentTask("press OK", "http://a.test/", 8, time.monotonic() + 60)
    browser = FakeBrowser(page)
    await run_agent(task, browser, llm, RecordingSink())
    first, second, third, fourth = (list(o) for o in llm.offered[:4])
    assert "tabs" not in first and first == second
    assert third == [*second, "tabs"]  # joined at the end, from the step after the call
    assert fourth == [*third, "hover"]
    assert [a.name for a in browser.actions] == ["hover"]  # more_tools never reaches the page


def test_a_task_that_selects_words_gets_select_text_and_a_dropdown_task_does_not() -> None:
    """Relay after fidelity wave 3, finding 10: "select the words" took a pixel drag."""
    words = ToolOffer(instruction="Select the words quick brown fox in the sentence.")
    assert "select_text" in names(words.tools(""))
    option = ToolOffer(instruction="Select Blue in the colour list and submit.")
    assert "select_text" not in names(option.tools(""))


def test_handle_dialog_joins_when_the_page_showed_a_native_dialog_only() -> None:
    """Relay finding (issue 26, click-dialog-2): `handle_dialog` (native alert/confirm/prompt)
    was offered for a task about an in-page "dialog" element. It joins when a result reports
    a native dialog the page showed (the browser's report names the tool)."""
    from workers.browser.act.verdicts import report
    from workers.browser.act.verify import Outcome

    offer = ToolOffer(instruction="Close the dialog box by clicking the 'x'. Confirm with OK.")
    page = '[1:1] dialog "Dialog"\n[1:2] button "x"\n[1:3] alertdialog "Sure?"'
    assert "handle_dialog" not in names(offer.tools(page))
    offer.enable_mentioned([report("click on 'x'", Outcome(causal=2), "http://a.test/").reason])
    assert "handle_dialog" not in names(offer.tools(page))
    shown = report("click on 'Delete'", Outcome(dialogs=("confirm 'Sure?' accepted",)), "x")
    offer.enable_mentioned([shown.reason])
    assert names(offer.tools(page))[-1] == "handle_dialog"

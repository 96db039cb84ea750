"""Approvals judge what an action does and whether the user asked for it (issue 31 item 5):
a quote form's submission needs a person whatever its button says, unless the instruction
asks for a quote; a login the site itself printed is typed without asking anyone."""

from __future__ import annotations

import json
import time

from workers.agent.loop.loop import run_worker_only
from workers.agent.people.approvals import Sensitivity, sensitivity
from workers.agent.people.consent import consent
from workers.agent.people.supervised import Supervision, supervise
from workers.agent.protocols import Action, ActionTarget, AgentTask
from workers.agent.testing import FakeLLM, InspectableBrowser, RecordingSink, ScriptedGate, reply

QUOTE, DONE = "http://parts.test/quote", "http://parts.test/sent"
FORM = dict(
    form_action="http://parts.test/quote", form_method="post",
    form_text="Request a quote Part Quantity Email", submits=True, composed=True,
)  # fmt: skip


def click(name: str, **facts: object) -> Sensitivity | None:
    target = ActionTarget(page_url=QUOTE, role="button", name=name, **facts)  # type: ignore[arg-type]
    return sensitivity(Action("click", {"ref": "1:1"}), target)


def test_a_form_that_sends_typed_text_out_needs_a_person_whatever_its_button_says() -> None:
    for label in ("Send request", "Submit quote", "OK"):
        assert click(label, **FORM) is not None, label
    search = {**FORM, "form_method": "get", "form_text": "Search parts"}
    assert click("Go", **search) is None
    login = {**FORM, "form_text": "Log in Username Password"}
    assert click("Continue", **login) is None
    assert click("Submit quote", **{**FORM, "composed": False}) is None  # nothing typed


def test_the_instruction_authorises_the_acts_it_asks_for_and_no_others() -> None:
    send, submit = click("Send request", **FORM), click("Submit quote", **FORM)
    assert send is not None and submit is not None
    asked = "Request a quote for 40 Hex bolt M8 to be sent to buyer@example.com"
    assert consent(send, asked) is not None and consent(submit, asked) is not None
    lookup = "What is the price of the Hex bolt M8?"
    assert consent(send, lookup) is None and consent(submit, lookup) is None

    delete_account, delete = click("Delete account"), click("Delete")
    assert delete_account is not None and delete is not None
    draft = "Delete the draft called 'Q3 plan'"
    assert consent(delete_account, draft) is None  # another object than the one asked
    assert consent(delete, draft) is not None
    assert consent(delete_account, "close or delete my account") is not None
    buy = click("Buy now")
    assert buy is not None and consent(buy, "find the cheapest kettle") is None
    assert consent(buy, "buy the cheapest kettle") is not None
    script = sensitivity(Action("evaluate_script", {"script": "1"}), None)
    assert script is not None and consent(script, "run a script to submit the form") is None


def _run(instruction: str, page: list[tuple[str, str, str | None]], calls: list, **facts):
    inner = InspectableBrowser({QUOTE: page, DONE: [("heading", "Thanks", None)]})
    inner.targets = facts
    gate = ScriptedGate(["denied"])
    browser = supervise(inner, gate, Supervision(instruction=instruction))
    llm = FakeLLM([reply(*calls), reply(("done", {"answer": "ok", "success": True}))])
    task = AgentTask(instruction, QUOTE, 4, time.monotonic() + 60)
    return inner, gate, llm, run_worker_only(task, browser, llm, RecordingSink())


async def test_an_asked_for_submission_runs_unattended_and_says_why() -> None:
    page = [("textbox", "Quantity", None), ("button", "Send request", DONE)]
    send = ActionTarget(role="button", name="Send request", **FORM)  # type: ignore[arg-type]
    inner, gate, llm, run = _run(
        "Request a quote for 40 Hex bolt M8", page, [("click", {"ref": "1:2"})],
        **{"Send request": send},
    )  # fmt: skip
    await run
    assert gate.requests == [] and inner.current == DONE
    (result,) = [json.loads(m["content"]) for m in llm.prompts[1] if m["role"] == "tool"]
    assert "your instruction asks for it ('request')" in result["reason"]


async def test_a_password_the_site_printed_is_typed_without_asking() -> None:
    page = [("password", "Password", None), ("text", "Demo login: admin / Tr0ub4dor", None)]
    pw = ActionTarget(role="textbox", name="Password", input_type="password")
    inner, gate, _, run = _run(
        "log in and read the status", page, [("type", {"ref": "1:1", "text": "Tr0ub4dor"})],
        **{"Password": pw},
    )  # fmt: skip
    await run
    typed = [a.name for a in inner.actions if not a.name.startswith("detect_")]
    assert gate.requests == [] and typed[:1] == ["type"]

    inner, gate, _, run = _run(
        "read the status of my account", page,
        [("type", {"ref": "1:1", "text": "<secret:password>"})], **{"Password": pw},
    )  # fmt: skip
    await run
    assert [r.kind for r in gate.requests] == ["login"]  # a secret, no login asked for: asked


def test_a_login_the_instruction_asks_for_types_the_tasks_secret_without_asking() -> None:
    """The realapps relay runs: every login with the task's own password waited for a
    person although the instruction said to log in."""
    field = ActionTarget(page_url=QUOTE, role="textbox", name="Password", input_type="password")
    secret = sensitivity(Action("type", {"ref": "1:1", "text": "<secret:oskar_pw>"}), field)
    literal = sensitivity(Action("type", {"ref": "1:1", "text": "hunter2"}), field)
    assert secret is not None and literal is not None
    asked = "Log in as oskar (password in the secrets) and close the thread 'Old printer'"
    assert consent(secret, asked) is not None
    assert consent(secret, "close the thread 'Old printer'") is None
    assert consent(literal, asked) is None  # literal text: judged by the site-shown rule only


def test_a_download_of_the_file_the_instruction_names_needs_no_person() -> None:
    """The relay run of the challenge pages: "Get the X200 manual" waited 60 s for an
    approval of the click on 'Get the manual (PDF)' that nobody could give."""
    target = ActionTarget(
        page_url="http://docs.test/x200", role="link", name="Get the manual (PDF)",
        href="http://docs.test/files/x200-manual.pdf", download=True,
    )  # fmt: skip
    found = sensitivity(Action("click", {"ref": "1:3"}), target)
    assert found is not None and found.rule == "download"
    assert consent(found, "Get the X200 manual and tell me the reset PIN it gives.") is not None
    assert consent(found, "Fetch the installation guide") is not None  # a verb of getting
    assert consent(found, "What is the warranty period of the X100?") is None
    assert consent(found, "Tell me the price of the device") is None


def test_mark_as_paid_authorises_the_back_offices_create_payment_button() -> None:
    """Relay finding (issue 33, pretix-12): "... paid his pending order by bank transfer. Find
    it and mark it as paid" waited for a person on "Create payment": the control's verb
    "create" was taken for an object the instruction does not name."""
    create = click("Create payment")
    assert create is not None
    asked = (
        "Lukas Meyer paid his pending order for the Harbour Jazz Festival 2027 by bank "
        "transfer. Find it and mark it as paid."
    )
    found = consent(create, asked)
    assert found is not None and found.family == "money"
    assert consent(create, "Tell me when Lukas Meyer registered") is None
    refund = click("Create refund")
    assert refund is not None and consent(refund, "mark the order as paid") is None

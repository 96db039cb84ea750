"""Routes through the steps real tasks take (issue 34): a login typed as a `bulk` with the
task's `<secret:NAME>` token, then a form sent with `fill_form`. Before, the recorder dropped
both (roundup-09/10 on bench/realapps cost 4 then 4 model calls); now run 2 replays them with
its own values and its own secret, and the secret's value never reaches the stored route,
the events or a prompt."""

from __future__ import annotations

import re
import time
from typing import Any

from workers.agent.loop.loop import run_agent
from workers.agent.protocols import Action, AgentOutcome, AgentTask, ToolResult
from workers.agent.replay.route_record import RouteRecorder
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeBrowser,
    FakeLLM,
    InMemoryRouteStore,
    RecordingSink,
    message_text,
    reply,
)

HOME = "http://tracker.test/"
ONE = (
    "Log in as frank (password <secret:user_pw>) and file an issue titled "
    '"Invoice PDF shows wrong VAT rate" with priority urgent'
)
TWO = (
    "Log in as grace (password <secret:user_pw>) and file an issue titled "
    '"Dark mode toggle resets after logout" with priority feature'
)
CANARY_ONE, CANARY_TWO = "canary-frank-7Q2", "canary-grace-9X4"
TOKEN = re.compile(r"<secret:(\w+)>")

PAGES: dict[str, list[tuple[str, str, str | None]]] = {
    HOME: [("textbox", "Username", None), ("textbox", "Password", None), ("button", "Login", None)],
    f"{HOME}home": [("link", "Create New", f"{HOME}new"), ("link", "Logout", HOME)],
    f"{HOME}new": [
        ("textbox", "Title", None),
        ("combobox", "Priority", None),
        ("button", "Submit", None),
    ],
    f"{HOME}issue/1": [("heading", "Issue filed", None)],
}


class Tracker(FakeBrowser):
    """A login form and an issue form: `bulk` and `fill_form` run their parts, a `type` of a
    `<secret:NAME>` token types the task's value (as PageSession does, inside the browser),
    the login works only with the user's own password, Submit files the issue."""

    def __init__(self, secrets: dict[str, str]) -> None:
        super().__init__(PAGES)
        self.secrets, self.typed, self.filed = secrets, dict[str, str](), dict[str, str]()

    async def execute(self, action: Action) -> ToolResult:
        if action.name == "bulk":  # as workers/browser/act/handlers.py: `tried` what ran
            self.actions.append(action)
            done: list[str] = []
            for call in action.args["actions"]:
                result = await self._one(Action(call["tool"], call["args"]))
                if not result.success:
                    return ToolResult(False, result.reason, tried=tuple(done), error=result.error)
                done.append(call["tool"])
            return ToolResult(success=True, tried=tuple(done), page_changed=self.current != HOME)
        return await self._one(action)

    async def _one(self, action: Action) -> ToolResult:
        if action.name == "fill_form":
            for field in action.args["fields"]:
                self.typed[self._name(field["ref"])] = str(field.get("value"))
            if action.args.get("submit_ref"):
                return await self._one(Action("click", {"ref": action.args["submit_ref"]}))
            return ToolResult(success=True)
        if action.name == "type":
            text = TOKEN.sub(lambda m: self.secrets[m.group(1)], str(action.args["text"]))
            self.typed[self._name(action.args["ref"])] = text
        if action.name == "click" and self._name(action.args["ref"]) == "Login":
            user = self.typed.get("Username", "")
            if self.typed.get("Password") != {"frank": CANARY_ONE}.get(user, CANARY_TWO):
                return ToolResult(success=False, reason="wrong password", error="action_failed")
            self.current = f"{HOME}home"
            return ToolResult(success=True, page_changed=True)
        if action.name == "click" and self._name(action.args["ref"]) == "Submit":
            self.filed = {k: v for k, v in self.typed.items() if k in ("Title", "Priority")}
            self.current = f"{HOME}issue/1"
            return ToolResult(success=True, page_changed=True)
        return await super().execute(action)

    def _name(self, ref: str) -> str:
        version, index = (int(x) for x in ref.split(":"))
        here = self.pages[self.current]
        return here[index - 1][1] if version == self.version and index <= len(here) else ""


def ref(messages: Any, name: str) -> str:
    found = re.findall(rf'\[(\d+:\d+)\] \w+ "{re.escape(name)}"', message_text(messages))
    assert found, name
    return found[-1]


def run_one_script(user: str, title: str, priority: str) -> list[Any]:
    login = [
        {"tool": "type", "ref": "{Username}", "text": user},
        {"tool": "type", "ref": "{Password}", "text": "<secret:user_pw>", "secret": True},
        {"tool": "click", "ref": "{Login}"},
    ]

    def bulk(m: Any) -> Any:
        calls = [{**c, "ref": ref(m, c["ref"][1:-1])} for c in login]
        return reply(("bulk", {"actions": calls}))

    def form(m: Any) -> Any:
        fields = {ref(m, "Title"): title, ref(m, "Priority"): priority}
        return reply(("fill_form", {"fields": fields, "submit_ref": ref(m, "Submit")}))

    return [
        bulk,
        lambda m: reply(("click", {"ref": ref(m, "Create New")})),
        form,
        reply(("done", {"answer": "filed", "success": True})),
    ]


async def _run(
    instruction: str, script: list[Any], store: InMemoryRouteStore, secret: str
) -> tuple[AgentOutcome, FakeLLM, RecordingSink, Tracker]:
    task = AgentTask(instruction, HOME, 10, time.monotonic() + 60, reuse_routes=True)
    recorder = RouteRecorder(instruction, HOME)
    llm, sink = FakeLLM(script, side=BRAIN_SIDE), RecordingSink()
    browser = Tracker({"user_pw": secret})
    watched = recorder.watch_sink(sink)
    outcome = await run_agent(task, recorder.watch(browser), llm, watched, routes=store)
    await recorder.commit(store, outcome)
    return outcome, llm, sink, browser


async def test_a_login_bulk_and_a_form_are_replayed_with_the_new_values_and_secret() -> None:
    store = InMemoryRouteStore()
    script = run_one_script("frank", "Invoice PDF shows wrong VAT rate", "urgent")
    first, llm_one, _, browser_one = await _run(ONE, script, store, CANARY_ONE)
    assert first.success and len(llm_one.prompts) == 4
    assert browser_one.filed == {"Title": "Invoice PDF shows wrong VAT rate", "Priority": "urgent"}
    (route,) = store.routes.values()
    assert [s.action for s in route.steps] == ["bulk", "click", "fill_form"]
    login, _, form = route.steps
    assert [p.action for p in login.parts] == ["type", "type", "click"]
    assert login.parts[1].args["text"] == "<secret:user_pw>" and login.replayable
    assert [p.action for p in form.parts] == ["field", "field", "submit"]
    assert form.parts[0].target is not None and form.parts[0].target.name == "Title"

    second, llm_two, sink, browser_two = await _run(
        TWO, [reply(("done", {"answer": "filed", "success": True}))], store, CANARY_TWO
    )
    assert second.success and len(llm_two.prompts) == 1  # 4 -> 1 model calls
    assert browser_two.filed == {
        "Title": "Dark mode toggle resets after logout",
        "Priority": "feature",
    }
    assert browser_two.typed["Username"] == "grace"
    assert browser_two.typed["Password"] == CANARY_TWO  # the second task's own secret
    (event,) = sink.of_type("route.replayed")
    assert event["replayed_steps"] == [1, 2, 3] and event["fell_back_at"] is None

    # the canaries: never in a stored route, an event or a prompt
    seen = [repr(store.routes), repr(sink.events), *(message_text(p) for p in llm_two.prompts)]
    seen += [message_text(p) for p in llm_one.prompts]
    assert not [text for text in seen if CANARY_ONE in text or CANARY_TWO in text]


async def test_literal_secret_text_in_a_bulk_is_never_stored_and_hands_over() -> None:
    store = InMemoryRouteStore()
    script = run_one_script("frank", "Invoice PDF shows wrong VAT rate", "urgent")
    literal = script[0]

    def typed_literally(m: Any) -> Any:
        call = literal(m)
        for c in call.tool_calls[0].arguments["actions"]:
            if c.get("secret"):
                c["text"] = CANARY_ONE
        return call

    script[0] = typed_literally
    first, _, _, _ = await _run(ONE, script, store, CANARY_ONE)
    assert first.success
    (route,) = store.routes.values()
    assert not route.steps[0].replayable and "text" not in route.steps[0].parts[1].args
    assert CANARY_ONE not in repr(store.routes)
    _, llm, sink, _ = await _run(TWO, run_one_script("grace", "X", "low"), store, CANARY_TWO)
    (event,) = sink.of_type("route.replayed")
    assert event["fell_back_at"] == 0 and len(llm.prompts) == 4


async def test_the_steps_a_failed_bulk_ran_are_in_the_route() -> None:
    """Relay run (roundup-15): a bulk typed the first field and failed at a later step; the
    model then did the rest. Without the first field the route replayed a form with it
    empty: the issue was filed without its title."""
    store = InMemoryRouteStore()
    script = run_one_script("frank", "Invoice PDF shows wrong VAT rate", "urgent")

    def half_form(m: Any) -> Any:
        calls = [
            {"tool": "type", "ref": ref(m, "Title"), "text": "Invoice PDF shows wrong VAT rate"},
            {"tool": "select_option", "ref": ref(m, "Priority"), "values": ["urgent"]},
            {"tool": "click", "ref": ref(m, "Priority").split(":")[0] + ":9"},  # no such ref
        ]
        return reply(("bulk", {"actions": calls}))

    submit = lambda m: reply(("click", {"ref": ref(m, "Submit")}))  # noqa: E731
    script[2:3] = [half_form, submit]
    first, llm_one, _, _ = await _run(ONE, script, store, CANARY_ONE)
    assert first.success and len(llm_one.prompts) == 5
    (route,) = store.routes.values()
    assert [s.action for s in route.steps] == ["bulk", "click", "bulk", "click"]
    assert [p.action for p in route.steps[2].parts] == ["type", "select_option"]

    done = reply(("done", {"answer": "filed", "success": True}))
    second, llm_two, _, browser = await _run(TWO, [done], store, CANARY_TWO)
    assert second.success and len(llm_two.prompts) == 1
    assert browser.typed["Title"] == "Dark mode toggle resets after logout"


async def test_a_value_the_instruction_names_twice_is_a_slot_in_both_places() -> None:
    """Relay run (roundup-15/16): "username henry, email henry@example.com": the trace typed
    both, the slot took the first "henry" only and the intent kept the second as a word, so
    "username irene, email irene@example.com" never matched the route."""
    pages = {
        HOME: [("textbox", "Username", None), ("textbox", "Email", None), ("button", "Save", None)],
    }
    one = "create the user with username henry and email henry@example.com"
    two = "create the user with username irene and email irene@example.com"

    class Users(FakeBrowser):
        async def execute(self, action: Action) -> ToolResult:
            if action.name == "bulk":
                self.actions.append(action)
                return ToolResult(success=True, tried=("type", "type"))
            return await super().execute(action)

    def save(m: Any) -> Any:
        calls = [
            {"tool": "type", "ref": ref(m, "Username"), "text": "henry"},
            {"tool": "type", "ref": ref(m, "Email"), "text": "henry@example.com"},
        ]
        return reply(("bulk", {"actions": calls}))

    store, done = InMemoryRouteStore(), reply(("done", {"answer": "saved", "success": True}))
    for text, script in ((one, [save, done]), (two, [done])):
        recorder, llm = RouteRecorder(text, HOME), FakeLLM(script, side=BRAIN_SIDE)
        sink, browser = RecordingSink(), Users(pages)
        task = AgentTask(text, HOME, 6, time.monotonic() + 60, reuse_routes=True)
        watched = recorder.watch_sink(sink)
        outcome = await run_agent(task, recorder.watch(browser), llm, watched, routes=store)
        await recorder.commit(store, outcome)
    (route,) = store.routes.values()
    assert "henry" not in route.intent  # both places are slots
    (replayed,) = [a for a in browser.actions if a.name == "bulk"]
    typed = [c["args"]["text"] for c in replayed.args["actions"]]
    assert typed == ["irene", "irene@example.com"] and len(llm.prompts) == 1


def test_a_value_after_a_dot_is_a_slot_of_an_address() -> None:
    """Relay run (pretix-07/08): "marta.novak@example.org" kept "novak" as text (a dot before
    it), so the replay typed "jan.novak@example.org" for Jan Kowalski."""
    from workers.agent.memory.route_values import Slots, match, render

    one = "buy it for Marta Novak, email marta.novak@example.org, by bank transfer"
    two = "buy it for Jan Kowalski, email jan.kowalski@example.org, by bank transfer"
    slots, used = Slots.of(one), set[int]()
    for typed in ("Marta", "Novak"):
        slots.template(typed, used)
    email = slots.template("marta.novak@example.org", used)
    values = match(one, sorted(used | slots.repeats(used)), two)
    assert values is not None and render(email, values) == "jan.kowalski@example.org"
    assert slots.template("1.7 L", set()) == "1.7 L"  # a decimal's digits stay one value


def test_only_the_last_of_several_calls_before_a_look_expects_what_appeared() -> None:
    """Relay run (pretix-08): the model typed the email and opened a section in one turn; the
    type step kept the section's fields as its effect, and its replay (alone) fell back."""
    from workers.agent.protocols import Observation

    recorder = RouteRecorder("fill in the email", HOME)
    page = '[1:1] textbox "Email"\n[1:2] button "Invoice information"'
    recorder.opened_at(HOME)
    recorder.observed(Observation(HOME, "", page, 1))
    for call in (
        Action("type", {"ref": "1:1", "text": "a@b.org"}),
        Action("click", {"ref": "1:2"}),
    ):
        recorder.executed(call, ToolResult(success=True), HOME)
    recorder.observed(Observation(HOME, "", page.replace("1:", "2:") + '\n[2:3] textbox "Name"', 2))
    assert [e.appeared for e in recorder.entries] == [[], ['textbox "Name"']]

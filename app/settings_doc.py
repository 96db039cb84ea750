"""Writes the configuration reference: `python -m app.settings_doc > docs/configuration.md`.

Every `WEBAGENT_*` variable of `Settings` with its type, default and description. A field's
description is its pydantic `description` when it has one, else the comments above and beside
it in app/settings.py; `NOTES` adds what the README's old table said beyond those comments
(facts with the tests that show them). Sections follow the blank-line groups of the class,
titled by their opening comment. tests/unit/test_docs_site.py fails while the page is stale.
"""

from __future__ import annotations

import inspect
import io
import re
import sys
import tokenize
import typing
from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr
from pydantic.fields import FieldInfo

from app.settings import Settings

PREFIX = "WEBAGENT_"
FIELD_LINE = re.compile(r"^    ([a-z_][a-z0-9_]*)\s*:")

# What the README's configuration table said beyond the comments in app/settings.py.
NOTES: dict[str, str] = {
    "data_dir": "Where the embedded deployment keeps its SQLite file (`webagent.db`) and, unless "
    "`WEBAGENT_SECRETS_KEY` is set, the key file that seals task secrets and browser profiles.",
    "database_url": "Empty: SQLite under `WEBAGENT_DATA_DIR`; `postgresql+asyncpg://...` for "
    "production.",
    "redis_url": "Empty: embedded; `redis://...` switches to rq workers + Redis Streams.",
    "host": "API bind address.",
    "port": "API port.",
    "api_keys_required": "Bearer keys from `webagent keys create` (see "
    "[Security model](security.md)).",
    "rate_limit_per_minute": "Per-key request budget.",
    "rate_limit_burst": "Per-key burst above the per-minute budget.",
    "max_active_tasks_per_tenant": "Per-client cap on queued + running tasks.",
    "allow_unauthenticated_bind": "Let `serve` bind a public address without keys.",
    "llm_base_url": "Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).",
    "llm_api_key": "Never logged, never sent to the page.",
    "llm_model": "The model of every role without its own `LLM_MODEL_<ROLE>`.",
    "llm_model_orchestrator": "Per-role model; empty: `WEBAGENT_LLM_MODEL`.",
    "llm_model_planner": "Per-role model; empty: `WEBAGENT_LLM_MODEL`.",
    "llm_model_worker": "Per-role model; empty: `WEBAGENT_LLM_MODEL`.",
    "llm_model_vision": "Per-role model; empty: `WEBAGENT_LLM_MODEL`.",
    "llm_model_summarizer": "Per-role model; empty: `WEBAGENT_LLM_MODEL`.",
    "llm_timeout_s": "Seconds one model call may take.",
    "llm_max_retries": "Retries of a failing model call before the task fails `llm_error`.",
    "llm_prices": "Also prices the run viewer's cost column and `webagent run`'s cost line; a "
    "model without a price adds nothing (a dash in the viewer).",
    "planner_every_n_steps": "Counted from the Planner's last review. A Worker that moves on from "
    "page to page is not reviewed (`test_a_run_that_moves_on_gets_no_periodic_review_and_a_loop_"
    "gets_one`); also after two failed steps in a row and when the Worker calls `done`.",
    "planner_at_start": "A Planner call (plan and checklist) before the first Worker step.",
    "lookup_page_tokens": "Emoji count ~3 tokens each; the prompt says when a page was cut "
    "(`test_the_lookup_prompt_caps_the_page_text_by_tokens_and_says_so`).",
    "chromium_path": "Debian's Chromium.",
    "allow_private_networks": "Let browsers reach private/loopback addresses (cloud metadata "
    "stays blocked unless listed exactly in `WEBAGENT_ALLOWED_PRIVATE_HOSTS`).",
    "browser_recycle_after_tasks": "A worker's Chromium is relaunched after this many tasks.",
    "browser_memory_cap_mb": "A worker's Chromium is relaunched between tasks when its process "
    "tree exceeds this.",
    "viewport_width": "Width of every task's browser viewport, CSS pixels.",
    "viewport_height": "Height of every task's browser viewport, CSS pixels.",
    "snapshot_max_tokens": "Trimmed ranges stay expandable with the `snapshot` tool.",
    "task_files_dir": "Each task's folder is removed when its task ends, and the supervisor "
    "sweeps those of tasks no longer running after a crash (20 tasks and a kill -9: "
    "`tests/chaos/test_scratch_folders.py`); a folder of a task its database does not know "
    "(another deployment sharing the folder) only after `MAX_TIMEOUT_S` untouched, and the "
    "default SQLite database in two working folders names two roots "
    "(`tests/e2e/test_blob_download_e2e.py`, `tests/integration/db/test_retention.py`). Empty: "
    "a folder in the temp dir named after the database.",
    "attachments_max_bytes": "Larger: 422.",
    "download_artifact_max_bytes": "Files over it stay readable by the agent but are not stored.",
    "artifact_store": "Step and approval screenshots, downloads, run recordings, task "
    "attachments; rows keep kind, content type, size, sha256, storage key. `s3` is tested "
    "against moto's S3 server (`tests/integration/store/test_store_contract.py`).",
    "artifact_dir": "With `local`: the folder; empty: `DATA_DIR/artifacts`.",
    "artifact_s3_bucket": "With `s3`: the bucket.",
    "artifact_s3_region": "With `s3`: the bucket's region.",
    "artifact_s3_access_key_id": "With `s3`: credentials; empty: the `AWS_*` environment.",
    "artifact_s3_secret_access_key": "With `s3`: credentials; empty: the `AWS_*` environment.",
    "artifact_presign_s": "The redirect comes after the tenant check "
    "(`tests/integration/api/test_artifacts_api.py`).",
    "record_trace": "See [run recordings](operations.md#artifacts-and-run-recordings).",
    "vision_enabled": "Also the larger `LLM_MODEL_VISION_FALLBACK` for complex page types.",
    "llm_worker_vision": "JPEG, content-cropped, long side ≤ `LLM_IMAGE_MAX_SIDE`, red tag N = "
    "ref `v:N`; an unchanged page says `[screenshot unchanged]`; one image in the prompt at a "
    "time.",
    "llm_vision_probe": "Before a task or bench run, each role that gets images is sent one tiny "
    "test image and refused with a configuration error if it cannot read it.",
    "llm_endpoint_check": "Also a model list that is no OpenAI answer, or a base URL without "
    "`/v1`; the detail names "
    "the setting (`tests/integration/workers/test_endpoint_check.py`). A pass is remembered "
    "for 60 s.",
    "takeover_pause_max_s": "The panel shows the time left (`tests/unit/agent/test_task_clock.py`, "
    "`tests/integration/ui/test_viewer_typing.py`).",
    "llm_image_max_side": "Long side of a screenshot sent to a model, pixels.",
    "observation_mode": "`compact` is the viewport-first snapshot with versioned refs; `som` "
    "needs `LLM_WORKER_VISION=true`, `vision` needs `VISION_ENABLED=true`; `pipeline` is "
    "divide-and-conquer for small models (section selection, detail extraction, summary by "
    "the summarizer model).",
    "humanize": "`false` takes about half the time per action (`bench/actions.py`).",
    "click_allow_untrusted": "The learnings mark a domain bot-protected when a run sees a "
    "challenge or bot wall there (`test_site_learning.py::"
    "test_a_bot_wall_marks_the_domain_and_the_scripted_click_tier_is_never_used`).",
    "worker_metrics_port": "`webagent worker` process N serves Prometheus metrics on this port "
    "+ N.",
    "heartbeat_interval_s": "Workers heartbeat running tasks this often.",
    "heartbeat_timeout_s": "The reaper fails tasks silent this long as `worker_lost`.",
    "reaper_interval_s": "How often the reaper (and the scratch-folder sweeper) runs.",
    "default_max_steps": "Task step limit when the request gives none.",
    "default_timeout_s": "Task time limit when the request gives none.",
    "default_time_zone": "Per task: `time_zone` on POST /v1/tasks.",
    "max_steps_limit": "The largest `max_steps` a request may ask for (more: 422).",
    "max_timeout_s": "The largest `timeout_s` a task or exploration may ask for (more: 422).",
    "event_stream_maxlen": "Length cap of a task's Redis event stream.",
    "sse_ping_s": "Keep-alive comment interval of live SSE streams.",
    "db_max_overflow": "Connections the API's Postgres pool may open beyond `DB_POOL_SIZE`.",
    "retention_days": "A finished task is kept with its events, artifacts, attachments, ledger "
    "and approvals; learnings stay. On Postgres `task_events` is partitioned by month and "
    "whole months older than every tenant's retention are dropped. `DELETE /v1/tasks/{id}` (or "
    "`webagent tasks delete ID`) deletes one task now, cancelling it first if it is live. "
    "Metrics `webagent_data_deleted_rows_total{table,reason}`, "
    "`webagent_data_deleted_bytes_total{reason}` (`tests/integration/db/test_retention.py`, "
    "`tests/integration/api/test_task_delete.py`).",
    "retention_days_by_tenant": 'Per-tenant overrides as JSON, e.g. `{"acme": 30, "audit": 0}`.',
    "retention_interval_s": "How often the pruner runs (next to the reaper in the API and in "
    "every `webagent worker`).",
    "approval_timeout_s": "Never past the task's own timeout; no answer is a denial recorded as "
    "a `handoff_timeout` dead end.",
    "approval_poll_s": "How often the worker looks for the decision.",
    "webhook_secret": "`whsec_<base64>` or any string.",
    "public_base_url": "Links in webhook messages (`approval.requested`: the run page, the "
    "approvals) are absolute under it, e.g. `https://agent.example.com`; empty: paths.",
    "webhook_max_attempts": "Deliveries per webhook before it is given up.",
    "webhook_retry_base_s": "Backoff base·2^(n-1), capped at `WEBHOOK_RETRY_MAX_S`.",
    "webhook_retry_max_s": "Cap of the retry backoff.",
    "webhook_timeout_s": "Per-attempt timeout.",
    "webhook_poll_interval_s": "How often the API looks for due deliveries.",
    "server_url": "Server of `webagent tasks` / `profiles` / `run --server`.",
    "client_api_key": "Key of `webagent tasks` / `profiles`.",
    "log_level": "Root log level.",
    "log_format": "`json`: one object a line with `task_id`, `step`; `text`: plain lines "
    "(`tests/unit/test_logging_config.py`).",
}


@dataclass
class Section:
    title: str
    intro: str
    fields: list[str] = field(default_factory=list)


def _comments(source: str) -> dict[int, tuple[str, bool]]:
    """Line number -> (comment text, whether the comment is the whole line)."""
    found: dict[int, tuple[str, bool]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            whole = tok.line[: tok.start[1]].strip() == ""
            found[tok.start[0]] = (tok.string.lstrip("#").strip(), whole)
    return found


def parse() -> tuple[list[Section], dict[str, list[str]], dict[str, str]]:
    """The class's sections, each field's own comments, and the block above its run."""
    source = inspect.getsource(Settings)
    comments = _comments(source)
    sections = [Section("General", "")]
    own: dict[str, list[str]] = {}
    shared_of: dict[str, str] = {}
    block: list[str] = []
    shared = ""  # a comment block above a run of fields speaks for the run's silent ones
    opens_section = True
    for number, line in enumerate(source.splitlines(), start=1):
        if line.strip().startswith("def "):
            break
        if not line.strip():
            block, shared, opens_section = [], "", True
            continue
        comment = comments.get(number)
        if comment and comment[1]:
            block.append(comment[0])
            continue
        match = FIELD_LINE.match(line)
        if match is None:
            block, opens_section = [], False
            continue
        name = match[1]
        if block and opens_section:
            sections.append(_section(block))
            block = []
        opens_section = False
        if block:
            shared = " ".join(block)
        own[name] = [" ".join(block), comment[0] if comment else ""]
        shared_of[name], block = shared, []
        sections[-1].fields.append(name)
    return [s for s in sections if s.fields], own, shared_of


def _section(block: list[str]) -> Section:
    title, _, rest = block[0].partition(":")
    intro = " ".join([rest.strip(), *block[1:]]).strip()
    return Section(title[:1].upper() + title[1:], intro)


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".)!?`" else text + "."


def _escape(text: str) -> str:
    """Table-safe markdown: pipes escaped, angle brackets outside code spans as entities."""
    pieces = re.split(r"(`[^`]*`)", text)
    safe = [p if p.startswith("`") else _plain(p) for p in pieces]
    return "".join(safe).replace("|", "\\|")


def _plain(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*")


def describe(name: str, info: FieldInfo, own: list[str], shared: str) -> str:
    """The field's description, else its own comments, else the block above its run; + NOTES."""
    parts = [info.description] if info.description else [p for p in own if p.strip()]
    if not parts and name not in NOTES:
        parts = [shared]
    parts.append(NOTES.get(name, ""))
    return _escape(" ".join(_sentence(p) for p in parts if p.strip()))


def type_of(info: FieldInfo) -> str:
    annotation = info.annotation
    if typing.get_origin(annotation) is typing.Literal:
        text = " \\| ".join(f"`{a}`" for a in typing.get_args(annotation))
    elif annotation is SecretStr:
        text = "secret string"
    elif typing.get_origin(annotation) is dict:
        text = "JSON object"
    else:
        text = getattr(annotation, "__name__", str(annotation))
    bounds = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    for meta in info.metadata:
        for attr, sign in bounds.items():
            value = getattr(meta, attr, None)
            if value is not None:
                text += f", {sign} {value}"
    return text


def default_of(info: FieldInfo) -> str:
    value: Any = info.get_default(call_default_factory=True)
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if value == "" or value is None:
        return "*empty*"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, dict):
        return "`{}`" if not value else f"`{value}`"
    return f"`{value}`"


def render() -> str:
    sections, own, shared = parse()
    fields = Settings.model_fields
    lines = [
        "# Configuration reference",
        "",
        "<!-- generated by `make docs-pages` (python -m app.settings_doc) from app/settings.py;"
        " tests/unit/test_docs_site.py fails while it is stale -->",
        "",
        f"All settings are environment variables with the `{PREFIX}` prefix (or lines of a "
        "`.env` file), read in one place: `Settings` in `app/settings.py`. Empty "
        "`DATABASE_URL` and `REDIS_URL` select the embedded deployment.",
    ]
    for section in sections:
        lines += ["", f"## {section.title}", ""]
        if section.intro:
            lines += [_escape(_sentence(section.intro)), ""]
        lines += ["| variable | type | default | description |", "|---|---|---|---|"]
        for name in section.fields:
            info = fields[name]
            lines.append(
                f"| `{PREFIX}{name.upper()}` | {type_of(info)} | {default_of(info)} "
                f"| {describe(name, info, own[name], shared[name])} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.stdout.write(render())


if __name__ == "__main__":
    main()

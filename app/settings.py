"""The one place that reads the environment: every knob is a `WEBAGENT_*` variable."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.contracts import QUEUE_NAME

Role = Literal["orchestrator", "planner", "worker", "vision", "vision_fallback", "summarizer"]


def iana_zone(name: str) -> str:
    """An IANA time zone name (Europe/Berlin, UTC), else ValueError naming it."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(
            f"unknown time zone {name!r}: use an IANA name like Europe/Berlin"
        ) from exc
    return name


class Settings(BaseSettings):
    """Service configuration. Empty DATABASE_URL/REDIS_URL select the embedded deployment."""

    model_config = SettingsConfigDict(env_prefix="WEBAGENT_", env_file=".env", extra="ignore")

    # storage and queue: unset means embedded (SQLite file + in-process dispatcher + memory bus)
    database_url: str = ""
    redis_url: str = ""
    # the rq queue API processes enqueue on and workers take from: deployments sharing one
    # Redis keep apart by naming their own
    queue_name: str = Field(default=QUEUE_NAME, min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    data_dir: str = ".webagent"

    # HTTP API
    host: str = "127.0.0.1"
    port: int = 8000
    api_keys_required: bool = False
    # `serve` on a non-loopback address without API keys refuses to start unless this is set
    # (e.g. a container whose port is published on the host's loopback only)
    allow_unauthenticated_bind: bool = False
    # per API key (per client address for failed authentication), in each API process
    rate_limit_per_minute: int = Field(default=600, ge=0)  # 0: no limit
    rate_limit_burst: int = Field(default=120, ge=1)
    # queued + running tasks per client of keyed callers; 0: no cap
    max_active_tasks_per_tenant: int = Field(default=50, ge=0)
    # with API keys required: who may read /metrics and /docs, /redoc, /openapi.json
    #   open - anyone; loopback - clients on 127.0.0.1/::1 or a key; key - a key only
    #   (/metrics needs an admin key, the docs any valid key)
    metrics_access: Literal["open", "loopback", "key"] = "loopback"
    docs_access: Literal["open", "loopback", "key"] = "key"

    # LLM endpoint (any OpenAI-compatible server) and per-role model overrides
    llm_base_url: str = "https://api.openai.com/v1"
    llm_api_key: SecretStr = SecretStr("not-set")
    # Fernet key sealing task secrets at rest; unset: a 0600 key file under data_dir
    secrets_key: SecretStr = SecretStr("")
    llm_model: str = "gpt-4o-mini"
    llm_model_orchestrator: str = ""
    llm_model_planner: str = ""
    llm_model_worker: str = ""
    llm_model_vision: str = ""
    llm_model_summarizer: str = ""
    # larger vision model for pages the small one classifies as complex (seed 000 §4.3);
    # empty: no escalation. Not a fallback to llm_model like the others.
    llm_model_vision_fallback: str = ""
    llm_timeout_s: float = 180.0
    llm_max_retries: int = 2
    # USD per 1M input / output tokens by model name (or name prefix), for max_cost_usd:
    # WEBAGENT_LLM_PRICES='{"gpt-4o": [2.5, 10], "gpt-4o-mini": [0.15, 0.6]}'
    llm_prices: dict[str, tuple[float, float]] = Field(default_factory=dict)
    # the Planner reviews every N steps (seed 000 §4.1 Algorithm 1, N = 4) when those steps show
    # a loop or a standstill, after failed steps in a row, and on the Worker's completion claim
    planner_every_n_steps: int = Field(default=4, ge=1)
    # also a Planner call before the first Worker step (off: one-step tasks cost no Planner call)
    planner_at_start: bool = False
    # false: the Worker alone on the browser route (no Planner, no Ledger view; seed 003 §6),
    # the baseline `webagent bench realapps --no-planner` compares the brain against
    planner_enabled: bool = True
    # the read-only lookup route's page text cap per page, in (estimated) tokens: an
    # emoji-dense page's 12,000 characters were ~19k tokens for a one-line answer
    lookup_page_tokens: int = Field(default=3000, ge=200)

    # browser
    chromium_path: str = "/usr/bin/chromium"
    allow_private_networks: bool = False  # cloud metadata stays blocked unless listed below
    # operator allowlist of private destinations: host names (exact or *.suffix) and CIDRs,
    # comma-separated, e.g. "intranet.local,10.2.0.0/16" (app/urlpolicy.py NetworkPolicy)
    allowed_private_hosts: str = ""
    # warm browser workers per host: in-process task threads of embedded `webagent serve`
    # (sharing one Chromium) and the default `webagent worker --concurrency` (one each)
    browser_pool_size: int = Field(default=2, ge=1)
    browser_recycle_after_tasks: int = 50
    browser_memory_cap_mb: int = 1500
    viewport_width: int = 1280
    viewport_height: int = 800
    snapshot_max_tokens: int = 1500  # size cap of the compact page view (seed 003 §6.1)
    # per-task files: <dir>/<task_id>/attachments (what upload_file may use) and
    # <dir>/<task_id>/artifacts (downloads, printed PDFs, screenshots); empty = temporary dirs
    task_files_dir: str = ""
    # files uploaded with a task (POST /v1/tasks `attachments`): total decoded bytes per task
    attachments_max_bytes: int = Field(default=10 * 1024 * 1024, ge=0)
    # a download or printed PDF larger than this stays out of the task's artifacts (API)
    download_artifact_max_bytes: int = Field(default=20 * 1024 * 1024, ge=0)
    # where artifact bytes live (screenshots, downloads, traces, attachments); rows keep
    # metadata only. local: a folder (artifact_dir, empty = <data_dir>/artifacts); s3: an
    # S3-compatible bucket (AWS, MinIO, R2, GCS interop), credentials from the settings below
    # or the AWS_* environment
    artifact_store: Literal["local", "s3"] = "local"
    artifact_dir: str = ""
    artifact_s3_bucket: str = ""
    artifact_s3_endpoint: str = ""  # empty: AWS; http://... allowed (MinIO in a private net)
    artifact_s3_region: str = ""
    artifact_s3_prefix: str = ""  # key prefix inside the bucket
    artifact_s3_access_key_id: str = ""
    artifact_s3_secret_access_key: SecretStr = SecretStr("")
    # >0 with s3: artifact downloads redirect (307) to a presigned URL valid this many
    # seconds instead of streaming through the API; 0 (or local): the API streams the bytes
    artifact_presign_s: int = Field(default=0, ge=0, le=7 * 24 * 3600)
    # record a Playwright trace (trace.zip artifact) of every task, not only of tasks that
    # ask for it with record_trace: true
    record_trace: bool = False
    # a vision model (role "vision") is available: observe(mode="vision") with [Vn] boxes
    # (seed 000 §4.3) and the Worker's `look` tool (questions about pixels, seed 003 §4.4)
    vision_enabled: bool = False
    # the Worker model reads images: each changed page comes with the Set-of-Mark screenshot
    # (seed 002 dual channel); refused at start unless the model answers an image probe
    llm_worker_vision: bool = False
    llm_vision_probe: bool = True  # false: trust the worker/vision models without the probe
    # before a task takes a browser, GET {llm_base_url}/models: an endpoint that refuses
    # connections or the key fails the task at once as `configuration` (issue 37).
    llm_endpoint_check: bool = True
    llm_image_detail: Literal["low", "high", "auto"] = "auto"  # OpenAI image_url detail
    llm_image_max_side: int = Field(default=1024, ge=256, le=2048)  # seed 002: 1024 px
    # what the Worker is shown of the page each step (PageSession.observe modes):
    #   compact  - trimmed accessibility-style lines within snapshot_max_tokens (seed 003 §6.1)
    #   pagemem  - section outline with the viewport's sections in full (seed 001 §2.2)
    #   som      - compact lines + the Set-of-Mark screenshot; needs llm_worker_vision
    #   vision   - compact + [Vn] boxes from the vision model; needs vision_enabled
    #   pipeline - divide-and-conquer summary + relevant controls (seed 001 §2.4, App. A.3);
    #              extra "summarizer" LLM calls each changed page, counted in the task usage
    observation_mode: Literal["compact", "pagemem", "som", "vision", "pipeline"] = "compact"
    # the hand (seed 000 §6.3-6.4): Bézier cursor paths, click timing and typing rhythm;
    # false sends the same CDP press/release straight to the target (faster, still trusted)
    humanize: bool = True
    humanize_typos: bool = False  # §6.4's 2% typo-and-correct while typing
    # tier 3 of the click cascade (scripted el.click(), isTrusted=false); never used on
    # domains the per-domain learnings mark bot-protected
    click_allow_untrusted: bool = False

    # worker liveness
    worker_metrics_port: int = 9101
    heartbeat_interval_s: float = 5.0
    # `webagent worker` keeps one spare process with its imports done: a worker that dies is
    # replaced by it in seconds instead of a cold start (costs one idle Python process)
    worker_standby: bool = True
    heartbeat_timeout_s: float = 30.0
    reaper_interval_s: float = 10.0

    # default task limits
    default_max_steps: int = Field(default=30, ge=1, le=500)
    default_timeout_s: float = Field(default=600.0, gt=0, le=86400)
    # the time zone of a task that names none (IANA name): the date and time the prompts show
    default_time_zone: Annotated[str, AfterValidator(iana_zone)] = "UTC"
    max_steps_limit: int = 500
    max_timeout_s: float = 86400.0

    # live events
    event_stream_maxlen: int = 10000
    sse_ping_s: float = 15.0
    sse_db_poll_s: float = 5.0  # SSE re-reads the DB when the live bus is quiet this long
    # concurrent DB reads of all SSE streams of one API process (open, replay, re-poll); the
    # others wait for a slot, never for a pooled connection (keep it below db_pool_size)
    sse_db_concurrency: int = Field(default=4, ge=1)
    # the API process's Postgres pool; a checkout waits db_pool_timeout_s, then fails (503)
    db_pool_size: int = Field(default=10, ge=1)
    db_max_overflow: int = Field(default=10, ge=0)
    db_pool_timeout_s: float = Field(default=30.0, gt=0)

    # retention (app/retention.py): days a finished task is kept with all its data (0: for
    # ever); per-tenant overrides, e.g. '{"acme": 30, "audit": 0}'; how often the pruner runs
    retention_days: int = Field(default=0, ge=0)
    retention_days_by_tenant: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    retention_interval_s: float = Field(default=3600.0, gt=0)

    # approvals (tasks with approval_policy "sensitive"): how long a paused task waits for a
    # person before the action counts as denied, and how often the worker looks for a decision
    approval_timeout_s: float = Field(default=900.0, gt=0)
    # ...and how long when nobody is set to answer (issue 31 item 5): a task with neither a
    # webhook for approval.requested nor an approval_timeout_s of its own (the viewer's form
    # and `webagent run` at a terminal send the full wait): short, then the action is undone
    approval_unattended_timeout_s: float = Field(default=60.0, gt=0)
    approval_poll_s: float = Field(default=0.5, gt=0, le=10)
    # a person's takeover stops the task's clock (timeout_s) while they hold the page, up to
    # this many seconds in all per run; past it the clock runs again (issue 37 item 1).
    takeover_pause_max_s: float = Field(default=600.0, ge=0, le=86400)
    # an operator's CAPTCHA/challenge solving service, "package.module:factory" returning a
    # workers.agent.protocols.ChallengeSolver; tried before a person is asked (none built in)
    challenge_solver: str = ""

    # webhooks (task webhook_url): Standard Webhooks HMAC-SHA256 key ("whsec_<base64>" or any
    # string); tasks with a webhook_url are refused while it is unset. Failed deliveries are
    # retried with exponential backoff from retry_base_s up to retry_max_s, max_attempts times.
    webhook_secret: SecretStr = SecretStr("")
    # the address people and webhook receivers reach this service at (https://agent.example.com):
    # links in webhook messages are absolute under it; empty: they are paths (/runs/...)
    public_base_url: str = ""
    webhook_max_attempts: int = Field(default=8, ge=1, le=50)
    webhook_retry_base_s: float = Field(default=10.0, gt=0)
    webhook_retry_max_s: float = Field(default=3600.0, gt=0)
    webhook_timeout_s: float = Field(default=10.0, gt=0, le=120)
    webhook_poll_interval_s: float = Field(default=2.0, ge=0)  # 0: no poller in this process

    # the CLI's client commands (`webagent tasks | profiles`): server (empty: http://host:port)
    # and the API key they send
    server_url: str = ""
    client_api_key: SecretStr = SecretStr("")

    # logs: level of the root logger; json - one JSON object a line with task id and step
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_format: Literal["json", "text"] = "json"

    def model_for(self, role: Role) -> str:
        """Per-role model override, falling back to the shared model."""
        override: str = getattr(self, f"llm_model_{role}")
        return override or self.llm_model

    @property
    def embedded(self) -> bool:
        """True when no Redis is configured: the API process runs the workers itself."""
        return not self.redis_url

    @property
    def effective_database_url(self) -> str:
        """SQLite file under data_dir unless a database URL is configured."""
        return self.database_url or f"sqlite+aiosqlite:///{self.data_dir}/webagent.db"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings, read once; tests build `Settings(...)` directly instead."""
    return Settings()

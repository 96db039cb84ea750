"""The run viewer's pages: run list (`/`), run page, submit form, sign-in.

Server-rendered with Jinja2; the run page and the form use two small vanilla scripts from
app/web/static that talk to the public API (`/v1/tasks...`, its SSE stream) - the viewer
adds no endpoint of its own that reads or changes a task. Pages are left out of the OpenAPI
schema and sent with a Content-Security-Policy that allows this origin only (no CDN).
"""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import Annotated, Any, Literal, get_args, get_origin
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.templating import Jinja2Templates

from app.api.deps import SessionDep
from app.api.domains import domain_memory
from app.api.inputs import TASK_ID_PATTERN
from app.api.schemas import TaskCreate
from app.auth import Principal, Scope
from app.contracts import WebhookEvent, WebsiteMem
from app.db import repo_profiles, repositories
from app.db.errors import InvalidCursor
from app.pricing import run_costs
from app.settings import Settings
from app.web.auth import (
    COOKIE,
    COOKIE_MAX_AGE_S,
    login_url,
    principal_for_key,
    safe_next,
    viewer_principal,
)
from app.web.queries import RunFilter, list_runs
from app.web.views import STATUS_CHOICES, run_row

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(
    env=Environment(
        loader=PackageLoader("app.web", "templates"),
        autoescape=select_autoescape(default=True),
    )
)

CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
MAX_FORM_BYTES = 4096
TASK_ID = re.compile(TASK_ID_PATTERN)
DOMAIN = re.compile(r"^[A-Za-z0-9.-]{1,255}$")
# optional request fields the form offers when the API accepts them (added by other features)
OPTIONAL_FIELDS = ("max_tokens", "max_cost_usd", "output_schema")
CHOICE_FIELDS = ("approval_policy", "task_profile")  # shown as <select> with the API's values


class LoginRequired(Exception):
    """Raised by the page guard; answered with a redirect to the sign-in form."""


class Forbidden(Exception):
    """The key is valid but lacks the scope a page needs."""


def _page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    settings: Settings = request.app.state.settings
    base = {"keys_required": settings.api_keys_required, "title": "webagent"}
    response = templates.TemplateResponse(request, name, {**base, **context}, status_code=status)
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["Cache-Control"] = "no-store"
    return response


async def reader(request: Request) -> Principal:
    """Page guard: a principal allowed to read tasks (sign in first otherwise)."""
    principal = await viewer_principal(request)
    if principal is None:
        raise LoginRequired
    if not principal.allows(Scope.tasks_read):
        raise Forbidden
    return principal


ReaderDep = Annotated[Principal, Depends(reader)]


async def learnings_reader(request: Request) -> Principal:
    """Page guard of the domain pages: a principal allowed to read learnings."""
    principal = await viewer_principal(request)
    if principal is None:
        raise LoginRequired
    if not principal.allows(Scope.learnings_read):
        raise Forbidden
    return principal


LearningsReaderDep = Annotated[Principal, Depends(learnings_reader)]


async def _costs(session: Any, request: Request, task_ids: list[str]) -> dict[str, float | None]:
    """USD per run when model prices are configured (WEBAGENT_LLM_PRICES), else unknown."""
    settings: Settings = request.app.state.settings
    if not settings.llm_prices:
        return {}
    return await run_costs(session, task_ids=task_ids, prices=settings.llm_prices)


def _text(value: str, limit: int) -> str:
    """Query text as the list uses it: bounded, printable, no NUL."""
    return "".join(ch for ch in value[:limit] if ch.isprintable()).strip()


@router.get("/", response_class=HTMLResponse)
async def run_list(
    request: Request,
    session: SessionDep,
    principal: ReaderDep,
    status: Annotated[str, Query(max_length=32)] = "",
    domain: Annotated[str, Query(max_length=255)] = "",
    q: Annotated[str, Query(max_length=200)] = "",
    cursor: Annotated[str, Query(max_length=512)] = "",
) -> Response:
    flt = RunFilter(
        status=status if status in STATUS_CHOICES else "",
        domain=_text(domain, 255),
        text=_text(q, 200),
        cursor=_text(cursor, 512),
    )
    error = None
    try:
        rows, next_cursor = await list_runs(session, tenant_id=principal.tenant_id, flt=flt)
    except InvalidCursor:
        rows, next_cursor, error = [], None, "That page link is no longer valid."
    costs = await _costs(session, request, [t.id for t in rows])
    context = {
        "runs": [run_row(t, costs.get(t.id)) for t in rows],
        "filter": flt,
        "statuses": STATUS_CHOICES,
        "next_cursor": next_cursor,
        "error": error,
        "can_write": principal.allows(Scope.tasks_write),
    }
    return _page(request, "runs.html", context)


def _offered_fields() -> list[str]:
    return [name for name in OPTIONAL_FIELDS if name in TaskCreate.model_fields]


def _choices() -> dict[str, tuple[list[str], str]]:
    """name -> (allowed values, default) of the enum/Literal request fields the form offers."""
    out = {}
    for name in CHOICE_FIELDS:
        field = TaskCreate.model_fields.get(name)
        if field is None:
            continue
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, Enum):
            values = [str(member.value) for member in kind]
        elif get_origin(kind) is Literal:
            values = [str(v) for v in get_args(kind)]
        else:
            continue
        default = field.default.value if isinstance(field.default, Enum) else field.default
        out[name] = (values, str(default))
    return out


SECRET_ROWS = 3  # name/value pairs the form offers (the API takes up to MAX_SECRETS)


@router.get("/runs/new", response_class=HTMLResponse)
async def submit_form(request: Request, session: SessionDep, principal: ReaderDep) -> Response:
    settings: Settings = request.app.state.settings
    profiles = await repo_profiles.list_profiles(session, tenant_id=principal.tenant_id)
    context = {
        "can_write": principal.allows(Scope.tasks_write),
        "fields": _offered_fields(),
        "choices": _choices(),
        "profiles": [p.name for p in profiles],
        "secret_rows": range(SECRET_ROWS),
        "webhooks_on": bool(settings.webhook_secret.get_secret_value()),
        "webhook_events": [e.value for e in WebhookEvent if e != WebhookEvent.task_finished],
        "default_max_steps": settings.default_max_steps,
        "default_timeout_s": settings.default_timeout_s,
        # a person is at the form: approvals wait the full time (issue 31 item 5)
        "approval_timeout_s": settings.approval_timeout_s,
        "max_steps_limit": settings.max_steps_limit,
    }
    return _page(request, "new.html", context)


@router.get("/runs/{task_id}", response_class=HTMLResponse)
async def run_page(
    request: Request, task_id: str, session: SessionDep, principal: ReaderDep
) -> Response:
    task = None
    if TASK_ID.match(task_id):
        task = await repositories.get_task(session, task_id=task_id, tenant_id=principal.tenant_id)
    if task is None:
        return _page(request, "missing.html", {"task_id": task_id}, status=404)
    settings: Settings = request.app.state.settings
    costs = await _costs(session, request, [task.id])
    context = {
        "run": run_row(task, costs.get(task.id)),
        "can_write": principal.allows(Scope.tasks_write),
        "prices": json.dumps(settings.llm_prices),
    }
    return _page(request, "run.html", context)


@router.get("/domains", response_class=HTMLResponse)
async def domain_list(
    request: Request, session: SessionDep, principal: LearningsReaderDep
) -> Response:
    """The sites this tenant's runs learned something about (issue 21)."""
    rows = await repositories.list_domains(session, tenant_id=principal.tenant_id)
    return _page(request, "domains.html", {"domains": rows})


@router.get("/domains/{domain}", response_class=HTMLResponse)
async def domain_page(
    request: Request, domain: str, session: SessionDep, principal: LearningsReaderDep
) -> Response:
    """What runs learned about one site, when, and from which runs (GET /v1/domains/{domain})."""
    found = None
    if DOMAIN.match(domain):
        found = await domain_memory(session, principal.tenant_id, domain)
    if found is None:
        return _page(request, "domain_missing.html", {"domain": domain}, status=404)
    learnings = [
        {**row.model_dump(), "shown": json.dumps(row.value, indent=1, ensure_ascii=False)}
        for row in found.learnings
    ]
    context = {
        "domain": found.domain,
        "learnings": learnings,
        "dead_ends": found.dead_ends,
        "routes": found.routes,
        "facts": found.facts,
    }
    return _page(request, "domain.html", context)


@router.get("/domains/{domain}/site", response_class=HTMLResponse)
async def site_page(
    request: Request, domain: str, session: SessionDep, principal: LearningsReaderDep
) -> Response:
    """The site's newest WebsiteMem (pages, templates, element behaviours, what was skipped)
    and its newest exploration's status (GET /v1/sites/{domain}, /v1/sites/explore/{id})."""
    mem = exploration = None
    if DOMAIN.match(domain):
        tenant = principal.tenant_id
        mem = await repositories.latest_website_mem(session, tenant_id=tenant, domain=domain)
        exploration = await repositories.latest_exploration(
            session, tenant_id=tenant, domain=domain
        )
    if mem is None and exploration is None:
        return _page(request, "site_missing.html", {"domain": domain}, status=404)
    context = {
        "domain": domain.rstrip(".").lower(),
        "mem": WebsiteMem.model_validate(mem.data) if mem is not None else None,
        "mem_at": mem.created_at if mem is not None else None,
        "exploration": exploration,
    }
    return _page(request, "site.html", context)


@router.get("/login", response_class=HTMLResponse)
async def login_form(request: Request, next: str = "/") -> Response:
    return _page(request, "login.html", {"next": safe_next(next), "error": None})


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    return origin.rstrip("/") == f"{request.url.scheme}://{request.url.netloc}"


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request) -> Response:
    """Check the key like the API does; keep it in an HttpOnly cookie (app/web/auth.py)."""
    body = (await request.body())[:MAX_FORM_BYTES].decode("utf-8", "replace")
    form = {k: v[0] for k, v in parse_qs(body).items()}
    target = safe_next(form.get("next"))
    settings: Settings = request.app.state.settings
    if not settings.api_keys_required:
        return RedirectResponse(target, status_code=303)
    key = form.get("key", "").strip()
    principal = await principal_for_key(request, key) if _same_origin(request) else None
    if principal is None:
        context = {"next": target, "error": "That API key is not valid (or was revoked)."}
        return _page(request, "login.html", context, status=401)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        COOKIE,
        key,
        max_age=COOKIE_MAX_AGE_S,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/logout")
async def logout() -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


async def login_required_handler(request: Request, exc: Exception) -> Response:
    return RedirectResponse(login_url(request), status_code=303)


async def forbidden_handler(request: Request, exc: Exception) -> Response:
    context = {"message": "This API key lacks the tasks:read scope the viewer needs."}
    return _page(request, "forbidden.html", context, status=403)

"""The LLM protocol over any OpenAI-compatible endpoint, with one model setting per role.

Transport retries (timeouts, 429, 5xx) are the openai client's own exponential backoff
(`llm_max_retries`); what is left afterwards is mapped to the agent's LLM error types.
The request body is posted as built (`client.post`, the SDK's way to any endpoint): its
`create()` first walks the whole message list through a TypedDict transform that changes
nothing for chat bodies, on the critical path of every step (issue 13).

A body UTF-8 cannot carry (a lone surrogate from a page) is repaired before it leaves, each
lone half replaced by U+FFFD and the repair logged as a request-encoding repair; one that
still cannot be encoded fails as `LLMRequestUnencodable`, never as a bad response (issue 27).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, cast

import openai
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletion

from app import metrics
from app.settings import Role, Settings
from workers.agent.errors import (
    ConfigurationError,
    LLMError,
    LLMProtocolError,
    LLMRejected,
    LLMRequestUnencodable,
    LLMUnavailable,
)
from workers.agent.protocols import LLMReply, ToolCall
from workers.agent.textcut import well_formed
from workers.agent.tools import PARSE_ERROR_KEY, RAW_ARGUMENTS_KEY

RAW_ARGUMENTS_CHARS = 2000
# a truncated or non-JSON body (a proxy cut, a crashed server) is asked again before failing
PROTOCOL_RETRIES = 2
PROTOCOL_RETRY_DELAY_S = 1.0
NOT_A_COMPLETION = "LLM response is not a chat completion"
COMPLETIONS_PATH = "/chat/completions"
CAUSE_CHARS = 500  # the endpoint's own error text kept for operators
SHORT_CHARS = 200
TIMED_OUT = "did not answer in time"
UNENCODABLE = "LLM request could not be encoded"

log = logging.getLogger(__name__)


def repaired(body: Any) -> tuple[Any, int]:
    """`body` with every string UTF-8 cannot encode made well formed; how many were changed."""
    if isinstance(body, str):
        fixed = well_formed(body)
        return fixed, int(fixed is not body)
    if isinstance(body, Mapping):
        pairs = [(k, repaired(v)) for k, v in body.items()]
        return {k: v for k, (v, _) in pairs}, sum(n for _, (_, n) in pairs)
    if isinstance(body, list | tuple):
        items = [repaired(v) for v in body]
        return [v for v, _ in items], sum(n for _, n in items)
    return body, 0


def parse_arguments(raw: str | None) -> dict[str, Any]:
    """Tool-call arguments as a dict; malformed JSON is kept so the loop can feed it back."""
    text = raw or "{}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        problem = f"{exc.msg} at char {exc.pos}"
    else:
        if isinstance(value, dict):
            return value
        problem = "arguments must be a JSON object"
    return {PARSE_ERROR_KEY: problem, RAW_ARGUMENTS_KEY: text[:RAW_ARGUMENTS_CHARS]}


@dataclass(frozen=True)
class Endpoint:
    """Where a call went, to name it in errors: the URL and the settings to change."""

    base_url: str
    model: str
    model_setting: str  # WEBAGENT_LLM_MODEL or the role's WEBAGENT_LLM_MODEL_<ROLE>

    @classmethod
    def of(cls, settings: Settings, role: Role) -> Endpoint:
        own = bool(getattr(settings, f"llm_model_{role}", ""))
        setting = f"WEBAGENT_LLM_MODEL_{role.upper()}" if own else "WEBAGENT_LLM_MODEL"
        return cls(settings.llm_base_url.rstrip("/"), settings.model_for(role), setting)

    def answered(self, status: int) -> str:
        return f"the LLM endpoint {self.base_url} answered {status} {_phrase(status)}"

    @property
    def settings(self) -> str:
        return f"check WEBAGENT_LLM_BASE_URL and {self.model_setting}"


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def map_error(exc: openai.OpenAIError, at: Endpoint) -> LLMError | ConfigurationError:
    """Group openai exceptions by what the caller should do about them; the message names
    the URL, the model and the setting, the endpoint's own words stay in `cause`."""
    return _mapped(exc, at).with_cause(str(getattr(exc, "message", "") or exc)[:CAUSE_CHARS])


def _mapped(exc: openai.OpenAIError, at: Endpoint) -> LLMError | ConfigurationError:
    model = f"model {at.model!r} ({at.model_setting})"
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ConfigurationError(
            f"{at.answered(exc.status_code)}: it refused the API key (WEBAGENT_LLM_API_KEY)"
        )
    if isinstance(exc, openai.NotFoundError):
        return ConfigurationError(
            f"{at.answered(404)} for {model}: the model is not served there or the base URL "
            "is wrong (an OpenAI-compatible WEBAGENT_LLM_BASE_URL usually ends in /v1)"
        )
    if isinstance(exc, openai.APITimeoutError):
        return LLMUnavailable(
            f"the LLM endpoint {at.base_url} {TIMED_OUT} for {model} (WEBAGENT_LLM_TIMEOUT_S)"
        )
    if isinstance(exc, openai.APIConnectionError):
        return LLMUnavailable(
            f"the LLM endpoint {at.base_url} is unreachable (WEBAGENT_LLM_BASE_URL)"
        )
    if isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError):
        return LLMRejected(
            f"{at.answered(exc.status_code)} for {model}: it rejected the request "
            f"({_short(exc.message)})"
        )
    if isinstance(exc, openai.APIStatusError):
        return LLMUnavailable(
            f"{at.answered(exc.status_code)} for {model} after retries; {at.settings}"
        )
    return LLMProtocolError(f"unusable LLM response from {at.base_url}: {exc}")


def _short(message: str) -> str:
    """An endpoint's rejection reason, without the SDK's 'Error code: 400 - ' prefix."""
    text = re.sub(r"^Error code: \d+ - ", "", message or "")
    return text[:SHORT_CHARS]


def _outcome(error: Exception) -> str:
    return "timeout" if isinstance(error, LLMUnavailable) and TIMED_OUT in str(error) else "error"


class OpenAILLM:
    """LLM protocol implementation; never logs or echoes the API key."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._client = AsyncOpenAI(
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key.get_secret_value(),
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_max_retries,
        )

    async def close(self) -> None:
        await self._client.close()

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMReply:
        model = self._settings.model_for(cast(Role, role))
        kwargs: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages]}
        if tools:
            kwargs["tools"] = [dict(t) for t in tools]
            if tool_choice:
                kwargs["tool_choice"] = tool_choice
        if response_format:
            kwargs["response_format"] = dict(response_format)
        started = time.perf_counter()
        try:
            reply = await self._complete(
                kwargs, Endpoint.of(self._settings, cast(Role, role)), started
            )
        except (LLMError, ConfigurationError) as error:
            metrics.observe_llm_call(role, model, _outcome(error), time.perf_counter() - started)
            raise
        broken = any(PARSE_ERROR_KEY in call.arguments for call in reply.tool_calls)
        metrics.observe_llm_call(
            role,
            model,
            "parse_error" if broken else "ok",
            reply.latency_s,
            reply.input_tokens,
            reply.output_tokens,
        )
        return reply

    async def _complete(self, kwargs: dict[str, Any], at: Endpoint, started: float) -> LLMReply:
        """One completion; a truncated or non-JSON body is asked again PROTOCOL_RETRIES times."""
        for attempt in range(PROTOCOL_RETRIES + 1):
            try:
                return await self._complete_once(kwargs, at, started)
            except LLMProtocolError:
                if attempt == PROTOCOL_RETRIES:
                    raise
                await asyncio.sleep(PROTOCOL_RETRY_DELAY_S * (attempt + 1))
        raise AssertionError("unreachable")

    async def _complete_once(
        self, kwargs: dict[str, Any], at: Endpoint, started: float
    ) -> LLMReply:
        try:
            response = await self._post(kwargs)
        except openai.OpenAIError as exc:
            raise self._scrubbed(map_error(exc, at)) from None
        except ValueError as exc:  # a body that is not JSON / not a completion
            raise LLMProtocolError(f"{NOT_A_COMPLETION} ({exc})") from exc
        return self._reply(response, at.model, time.perf_counter() - started)

    async def _post(self, kwargs: dict[str, Any]) -> Any:
        """Post the body; one UTF-8 cannot encode is repaired once, then refused by name."""
        try:
            return await self._client.post(COMPLETIONS_PATH, cast_to=ChatCompletion, body=kwargs)
        except UnicodeEncodeError as exc:
            fixed, count = repaired(kwargs)
            log.warning(
                "LLM request encoding repaired: %d string(s) held lone surrogates (%s)",
                count,
                exc.reason,
            )
            kwargs.update(fixed)
        try:
            return await self._client.post(COMPLETIONS_PATH, cast_to=ChatCompletion, body=kwargs)
        except UnicodeEncodeError as exc:
            raise LLMRequestUnencodable(f"{UNENCODABLE} ({exc})") from exc

    def _scrubbed(self, error: LLMError | ConfigurationError) -> LLMError | ConfigurationError:
        """Endpoints may echo request headers in error bodies: the key never leaves here."""
        key = self._settings.llm_api_key.get_secret_value()
        if key and (key in str(error) or key in error.cause):
            cause = error.cause.replace(key, "***")
            return type(error)(str(error).replace(key, "***")).with_cause(cause)
        return error

    @staticmethod
    def _reply(response: Any, model: str, latency: float) -> LLMReply:
        if isinstance(response, str | bytes):  # the client hands back a body it cannot parse
            head = response[:80] if isinstance(response, str) else response[:80].decode("replace")
            raise LLMProtocolError(f"{NOT_A_COMPLETION}: truncated or non-JSON body {head!r}")
        if not getattr(response, "choices", None):
            raise LLMProtocolError(f"{NOT_A_COMPLETION}: it has no choices")
        choice = response.choices[0]
        calls = tuple(
            ToolCall(id=call_id, name=call.function.name, arguments=parse_arguments(args))
            for call_id, call, args in _unique_ids(choice.message.tool_calls or ())
        )
        usage = response.usage
        return LLMReply(
            content=choice.message.content,
            tool_calls=calls,
            input_tokens=(usage.prompt_tokens or 0) if usage else 0,
            output_tokens=(usage.completion_tokens or 0) if usage else 0,
            model=response.model or model,
            latency_s=latency,
            finish_reason=choice.finish_reason,
            reasoning=_reasoning(choice.message),
        )


def _reasoning(message: Any) -> str | None:
    """Reasoning text some servers return beside the answer (`reasoning_content`)."""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None)
        if value is None:
            value = (getattr(message, "model_extra", None) or {}).get(name)
        if isinstance(value, str) and value:
            return value
    return None


def _unique_ids(calls: Any) -> list[tuple[str, Any, str | None]]:
    """(id, call, arguments) per function call. Some servers send no ids or repeat one within
    a reply; every tool message must answer exactly one call, so ids are made unique."""
    seen: set[str] = set()
    out: list[tuple[str, Any, str | None]] = []
    for index, call in enumerate(calls):
        if getattr(call, "function", None) is None:
            continue
        call_id = call.id or f"call_{index}"
        if call_id in seen:
            call_id = f"{call_id}_{index}"
        seen.add(call_id)
        out.append((call_id, call, call.function.arguments))
    return out

"""The one door to litellm: imported lazily and offline, streamed, its errors made readable.

`import litellm` takes seconds and, unless offline mode is set first, fetches a price list
from the internet; so nothing imports it at module level, and the first import runs in a
worker thread to keep the event loop (and the window) responsive.

What a request really sent is taken from litellm's pre-call hook (`Logging.pre_call`, the point
where litellm hands the provider-shaped body to the HTTP client and calls `CustomLogger.log_pre_api_call`):
the body after litellm's translation for the provider, never a reconstruction. The hook is given per
call as `logger_fn` (a `CustomLogger` passed in `callbacks=` joins litellm's global callback lists for
good); it keeps a reference to the body, so the first token waits for no copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import re
import sys
import threading
import warnings
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, TypeVar

from desktop_app.core.long_lived import long_lived
from desktop_app.core.model.lazy_type_packages import type_members_on_first_use
from desktop_app.core.model.schemas_on_first_use import schemas_built_on_first_use
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.model.tokenizer_file import tokenizer_read_after

log = logging.getLogger(__name__)
T = TypeVar("T")
_lock = threading.Lock()
_ready_lock = threading.Lock()
_module: Any = None

_PREFIXES: Final = re.compile(r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)?(?:\w+Exception\s*-\s*)?")
_MAX_DETAIL: Final = 300
_KINDS: Final = {
    "AuthenticationError": "authentication failed",
    "PermissionDeniedError": "permission denied",
    "NotFoundError": "model or endpoint not found",
    "RateLimitError": "rate limited",
    "ContextWindowExceededError": "the conversation is too long for the model's context window",
    "ContentPolicyViolationError": "refused by the provider's content policy",
    "BadRequestError": "the provider rejected the request",
    "UnprocessableEntityError": "the provider rejected the request",
    "Timeout": "timed out",
    "APIConnectionError": "cannot reach the provider",
    "ServiceUnavailableError": "the provider is unavailable",
    "InternalServerError": "the provider failed",
}
_ANSWERED: Final = frozenset({"HTTPStatusError", "APIStatusError"})
"""Raised (by httpx, or the OpenAI SDK) only for a response that came back with an error status."""
_NETWORK: Final = frozenset({"TransportError", "ClientConnectionError", "APIConnectionError", "OSError"})
"""Failures of the connection itself (httpx, aiohttp, the OpenAI SDK, the socket)."""


class ProviderError(Exception):
    """A model call failed; the message is one line naming the model and what went wrong."""


@dataclass(frozen=True)
class SentRequest:
    """The request body litellm handed the HTTP client (after its translation), and where it went.

    `raw` is litellm's own dict, which it may still complete after the hook (Anthropic's `stream`):
    read `body` once the call has ended. Headers are never kept: they carry the API key.
    """

    raw: Mapping[str, Any]
    api_base: str

    @property
    def body(self) -> dict[str, Any]:
        """The JSON the provider received."""
        return _as_sent(self.raw)


_SDK_OPTIONS: Final = frozenset({"extra_headers", "extra_query", "timeout"})
"""Keys of the OpenAI SDK's call that are not part of the body it sends (`extra_body` is merged into it)."""


def _as_sent(body: Mapping[str, Any]) -> dict[str, Any]:
    """`body` as the HTTP request carries it: the OpenAI SDK merges `extra_body` into the JSON it sends."""
    sent = {key: value for key, value in body.items() if key not in _SDK_OPTIONS and key != "extra_body"}
    extra = body.get("extra_body")
    if isinstance(extra, Mapping):
        sent.update(extra)
    return sent


def _pre_call_hook(on_sent: Callable[[SentRequest], None]) -> Callable[[dict[str, Any]], None]:
    """litellm's `logger_fn`: called with the call's details before the request and after the answer.

    Before the request (`log_event_type` "pre_api_call") the details carry the provider-shaped body
    (`complete_input_dict`); a retry calls it again, so the last body is the one that was answered.
    """

    def hook(details: dict[str, Any]) -> None:
        if details.get("log_event_type") != "pre_api_call":
            return
        extra = details.get("additional_args") or {}
        body = extra.get("complete_input_dict")
        if isinstance(body, Mapping):
            on_sent(SentRequest(body, str(extra.get("api_base") or "")))

    return hook


@contextlib.contextmanager
def _library_objects() -> Iterator[None]:
    """What runs in the block makes the model library's own objects: long-lived, its pydantic
    schemas built on first use (the warm-up call builds the ones a request needs), the OpenAI SDK's
    types imported when first named."""
    with long_lived(), schemas_built_on_first_use(), type_members_on_first_use():
        yield


def litellm_module() -> Any:
    """litellm, imported once with offline mode on (no network at import, bundled tokenizers)."""
    global _module
    with _lock:
        if _module is None:
            os.environ["LITELLM_OFFLINE_MODE"] = "true"
            # Its default mode ("DEV") loads a `.env` file found above its install folder into the
            # app's environment at import.
            os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
            # After each call it copies the whole history to shorten images for its loggers, which the
            # app has none of: turned off, a call costs the same in a chat's 500th turn as in its first.
            os.environ.setdefault("MAX_BASE64_LENGTH_FOR_LOGGING", "0")
            # litellm's typed dicts make pydantic warn at import; it is not the user's concern.
            warnings.filterwarnings("ignore", r"Items? .* on TypedDict class .* `ReadOnly` qualifier", UserWarning)
            with _library_objects(), tokenizer_read_after():
                import litellm

            litellm.suppress_debug_info = True
            # litellm prices every response, counting the prompt's tokens (the whole system prompt)
            # when a stream has no usage yet; that loads two more encodings (~80 MB) and costs CPU
            # before each first token. The app counts its own (core/chat/tokens.py) and shows the
            # provider's usage; nothing here reads a price.
            litellm.disable_token_counter = True
            # litellm logs every call at INFO on stderr; the app reports what matters itself.
            for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
                logging.getLogger(name).setLevel(logging.WARNING)
            _module = litellm
        return _module


async def _in_daemon_thread(work: Callable[[], T]) -> T:
    """Run `work` off the event loop in a daemon thread: quitting never waits for the model
    library's import (seconds, tens on a busy machine), as it would for the loop's executor."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def run() -> None:
        try:
            result = work()
        except BaseException as exc:
            settle_soon = partial(settle, partial(future.set_exception, exc))
        else:
            settle_soon = partial(settle, partial(future.set_result, result))
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app quit meanwhile
            loop.call_soon_threadsafe(settle_soon)

    threading.Thread(target=run, name="model-library", daemon=True).start()
    return await future


_WARM_TOOL: Final = {
    "type": "function",
    "function": {"name": "warm_up", "description": "-", "parameters": {"type": "object", "properties": {}}},
}
_exercised = False


def _exercise_offline(litellm: Any) -> None:
    """One mocked streamed call with a tool, in a private loop: litellm imports the rest of itself
    (dozens of modules) and builds its deferred pydantic schemas on the first call; a first real
    call pays about a second of CPU for that, this one about half."""
    messages = [{"role": "user", "content": "warm up"}]

    async def call() -> list[Any]:
        kwargs = {"stream": True, "mock_response": "ok", "tools": [_WARM_TOOL], "max_tokens": 4}
        response = await litellm.acompletion(model="openai/gpt-4o-mini", messages=messages, **kwargs)
        return [chunk async for chunk in response]

    litellm.stream_chunk_builder(asyncio.run(call()), messages=messages)
    # A real call (the mocked one stops short of it) also times itself through a service logger,
    # whose Prometheus types take 10-30 ms of CPU to import on a busy machine: at the first token.
    importlib.import_module("litellm._service_logger")


def ready_litellm() -> Any:
    """litellm, imported and its first call made (mocked, offline) once: what a first request needs.

    A request that waits for this, rather than racing the warm-up call on another thread for the
    interpreter, gets its first token sooner."""
    global _exercised
    litellm = litellm_module()
    with _ready_lock:
        if not _exercised:
            try:
                with _library_objects():  # the first call adds schemas and the rest of litellm
                    _exercise_offline(litellm)
            except Exception as exc:  # only a speed-up: a failure here must not stop a request
                log.info("litellm warm-up call failed: %s", exc)
            _exercised = True
    return litellm


async def load_litellm() -> Any:
    """litellm ready for a first request, without blocking the event loop on its slow first import."""
    if _exercised:
        return _module
    return await _in_daemon_thread(ready_litellm)


def _import_openai_sdk() -> None:
    with _library_objects():
        importlib.import_module("openai")


async def preload_openai_sdk() -> None:
    """Import the OpenAI SDK, which litellm imports whatever the provider: about a seventh of the
    model library's import (0.2-0.3 s of CPU, its types imported as they are first named).

    Done once the app has settled after start, it leaves the rest of the import, begun at the
    first key, time to end before a message typed for five seconds is sent."""
    if "openai" not in sys.modules:
        await _in_daemon_thread(_import_openai_sdk)


def _cause_classes(exc: BaseException) -> set[str]:
    """Names of the classes along what caused `exc` (litellm wraps the SDK, which wraps httpx).

    `exc` itself is left out: litellm's exception classes derive from the OpenAI SDK's, status or not.
    """
    names: set[str] = set()
    current, depth = exc.__cause__ or exc.__context__, 0
    while current is not None and depth < 50:
        names.update(cls.__name__ for cls in type(current).__mro__)
        current, depth = current.__cause__ or current.__context__, depth + 1
    return names


def describe_provider_error(model: str, exc: BaseException, *, streaming: bool = False) -> str:
    """`openai/gpt-x: authentication failed (HTTP 401): bad key`, from any litellm exception.

    litellm gives every failure a status code, even one raised before a request was sent (a missing
    key, a refused connection); an HTTP status is shown only when a response really carried it.
    `streaming` says whether the answer had begun to arrive.
    """
    kind = next((_KINDS[c.__name__] for c in type(exc).__mro__ if c.__name__ in _KINDS), None)
    causes = _cause_classes(exc)
    status = getattr(exc, "status_code", None) if causes & _ANSWERED else None
    if status is None and kind != "timed out":
        if causes & _NETWORK:
            kind = "cannot reach the provider" if not streaming else "the connection to the provider broke"
        elif not streaming:
            kind = "the request was not sent"
    detail = str(getattr(exc, "message", None) or exc or "")
    detail = _PREFIXES.sub("", detail.strip().splitlines()[0] if detail.strip() else "").strip()
    for prefix in ("litellm.", "Error:"):
        detail = detail.removeprefix(prefix).strip()
    if len(detail) > _MAX_DETAIL:
        detail = detail[: _MAX_DETAIL - 1] + "…"
    head = kind or "the provider call failed"  # never an exception's class name: users read this
    if isinstance(status, int):
        head += f" (HTTP {status})"
    return f"{model}: {head}: {detail}" if detail and detail != head else f"{model}: {head}"


async def stream_completion(
    settings: ModelSettings,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    api_key: str | None,
    extra: Mapping[str, Any] | None = None,
    on_sent: Callable[[SentRequest], None] | None = None,
) -> AsyncIterator[Any]:
    """Stream one chat completion's chunks; provider failures raise `ProviderError`.

    `extra` adds completion options (`stop`, `tool_choice`, …) for callers other than the chat.
    `on_sent` hears the body litellm sends the provider, once it is about to be sent (see above).

    The stream is closed on every exit (cancellation included), so the HTTP request ends too.
    """
    litellm = await load_litellm()
    kwargs: dict[str, Any] = {
        "model": settings.model,
        "messages": list(messages),
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": settings.max_tokens,
        "timeout": settings.timeout,
        "max_retries": settings.max_retries,
    }
    if tools:
        kwargs["tools"] = list(tools)
    if settings.api_base:
        kwargs["api_base"] = settings.api_base
    if api_key:
        kwargs["api_key"] = api_key
    if settings.temperature is not None:
        kwargs["temperature"] = settings.temperature
    kwargs.update(extra or {})
    if on_sent is not None:
        kwargs["logger_fn"] = _pre_call_hook(on_sent)
    try:
        response = await litellm.acompletion(**kwargs)
    except Exception as exc:
        raise ProviderError(describe_provider_error(settings.model, exc)) from exc
    try:
        async with response:
            async for chunk in response:
                yield chunk
    except Exception as exc:
        raise ProviderError(describe_provider_error(settings.model, exc, streaming=True)) from exc


def assemble(chunks: Sequence[Any], messages: Sequence[dict[str, Any]]) -> Any:
    """The whole response (message, tool calls, usage) built from streamed chunks by litellm."""
    litellm = litellm_module()
    return litellm.stream_chunk_builder(list(chunks), messages=list(messages))

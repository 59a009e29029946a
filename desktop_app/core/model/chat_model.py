"""One model call of the chat's tool loop, behind a small interface the loop can be given.

The chat talks to `ChatModel`: the live one streams through litellm (`LiteLLMModel`); a replay
answers from a recorded trace instead (`core/ledger/replay.py`), so the same loop runs without
any provider. While the answer streams, the loop hears its text and its tool-call fragments
through a `ModelListener`; at the end it gets the whole assistant message, the provider's usage
and the request as it was sent.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from desktop_app.core.model.llm import SentRequest, assemble, stream_completion
from desktop_app.core.model.settings import ModelSettings


@dataclass(frozen=True)
class ProviderUsage:
    """Tokens the provider says the call used."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@dataclass(frozen=True)
class ModelReply:
    """A finished model call: the assistant message to append, and what the provider said about it."""

    message: dict[str, Any]
    usage: ProviderUsage | None = None
    """None when the provider reported none."""
    sent: SentRequest | None = None
    """The body the provider received; None when nothing was sent (a recorded reply)."""
    first_token_s: float | None = None
    """Seconds from the call to its first streamed piece."""
    elapsed_s: float = 0.0


class ModelListener(Protocol):
    """Hears a model call as it streams."""

    def text(self, delta: str) -> None: ...

    def tool_call_deltas(self, deltas: Sequence[Any]) -> None:
        """Fragments of tool calls as the provider streams them (`index`, `id`, `function.arguments`)."""

    def sent(self, request: SentRequest) -> None:
        """The request was handed to the provider, as it was sent."""


class ChatModel(Protocol):
    """Answers one request of the loop; raises `ProviderError` when the provider fails."""

    async def complete(
        self,
        settings: ModelSettings,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        api_key: str | None,
        listener: ModelListener,
    ) -> ModelReply: ...


def assistant_message(message: Any) -> dict[str, Any]:
    """An assembled response's message as the chat keeps it (OpenAI format, every tool call with an id)."""
    # An assistant message that only calls tools has no `content` key (litellm drops a null one).
    assistant: dict[str, Any] = {"role": "assistant"}
    if message.content or not message.tool_calls:
        assistant["content"] = message.content or ""
    if message.tool_calls:
        assistant["tool_calls"] = [
            {
                "id": call.id or f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": call.function.name or "", "arguments": call.function.arguments or "{}"},
            }
            for call in message.tool_calls
        ]
    return assistant


class LiteLLMModel:
    """The live model: one streamed litellm completion per request."""

    async def complete(
        self,
        settings: ModelSettings,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        api_key: str | None,
        listener: ModelListener,
    ) -> ModelReply:
        chunks: list[Any] = []
        sent: list[SentRequest] = []
        started = time.monotonic()
        first: float | None = None

        def on_sent(request: SentRequest) -> None:
            sent.append(request)
            listener.sent(request)

        async for chunk in stream_completion(settings, messages, tools, api_key, on_sent=on_sent):
            if first is None:
                first = time.monotonic() - started
            chunks.append(chunk)
            delta = chunk.choices[0].delta if chunk.choices else None
            if delta is not None and delta.content:
                listener.text(delta.content)
            if delta is not None and (calls := getattr(delta, "tool_calls", None)):
                listener.tool_call_deltas(calls)
        # litellm builds the response from every chunk in pure Python (~50 ms of CPU for a 2,000-token
        # answer on a busy machine): in a thread, the window goes on painting meanwhile.
        response = await asyncio.to_thread(assemble, chunks, messages) if chunks else None
        request = sent[-1] if sent else None
        elapsed = time.monotonic() - started
        if response is None or not response.choices:
            return ModelReply({"role": "assistant", "content": ""}, None, request, first, elapsed)
        usage = getattr(response, "usage", None)
        figures = None
        if usage is not None and usage.total_tokens:  # zeros: the provider sent none (litellm counts none)
            figures = ProviderUsage(
                int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0), int(usage.total_tokens or 0)
            )
        return ModelReply(assistant_message(response.choices[0].message), figures, request, first, elapsed)

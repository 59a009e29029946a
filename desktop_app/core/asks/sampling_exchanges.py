"""Which follow-up sampling request an "allow once" covers: the continuation of that exchange, once.

When the user allows a request once and lets the model's tool calls go back to the server, the
server runs the tools and asks again with their results. That follow-up needs no new consent only
if it is that same exchange, unchanged: the system prompt, tools and messages the user saw, then
the model's answer exactly as it was sent back, then one result per tool call and nothing else.
Anything else (a new prompt, another tool, a rewritten answer, the same follow-up sent twice, a
request from another tool call) is a new request and is put to the user again. The user's edits
to the first request apply to its follow-ups too: they stay what the model reads.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from mcp_types import CreateMessageRequestParams, SamplingMessage, ToolResultContent, ToolUseContent

C = TypeVar("C")
REMEMBERED: Final = 64


@dataclass(frozen=True)
class _Exchange(Generic[C]):
    call_id: str
    consent: C
    system_prompt: str | None
    tools: str
    messages: tuple[str, ...]
    answer: str
    tool_use_ids: frozenset[str]


def _canonical(value: Any) -> str:
    dumped = value.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(value, "model_dump") else value
    return json.dumps(dumped, sort_keys=True, ensure_ascii=False)


def _message(message: SamplingMessage) -> str:
    return _canonical({"role": message.role, "content": [_canonical(b) for b in message.content_as_list]})


def _tools(params: CreateMessageRequestParams) -> str:
    return _canonical([_canonical(tool) for tool in params.tools or []])


class AllowedExchanges(Generic[C]):
    """Exchanges the user allowed once whose answer asked for tools: each covers one faithful follow-up."""

    def __init__(self) -> None:
        self._open: deque[_Exchange[C]] = deque(maxlen=REMEMBERED)

    def remember(self, call_id: str, params: CreateMessageRequestParams, consent: C, answer: Sequence[Any]) -> None:
        """The user allowed `params` (with `consent`) and `answer` went back to the server."""
        uses = frozenset(b.id for b in answer if isinstance(b, ToolUseContent))
        if not uses:
            return
        self._open.append(
            _Exchange(
                call_id=call_id,
                consent=consent,
                system_prompt=params.system_prompt,
                tools=_tools(params),
                messages=tuple(_message(m) for m in params.messages),
                answer=_message(SamplingMessage(role="assistant", content=list(answer))),
                tool_use_ids=uses,
            )
        )

    def take(self, call_id: str, params: CreateMessageRequestParams) -> C | None:
        """The consent that covers `params` as the faithful follow-up of an allowed exchange (used up), else None."""
        for exchange in self._open:
            if exchange.call_id == call_id and _continues(exchange, params):
                self._open.remove(exchange)
                return exchange.consent
        return None


def _continues(exchange: _Exchange[Any], params: CreateMessageRequestParams) -> bool:
    messages = params.messages
    known = len(exchange.messages)
    if len(messages) != known + 2:
        return False
    if params.system_prompt != exchange.system_prompt or _tools(params) != exchange.tools:
        return False
    if tuple(_message(m) for m in messages[:known]) != exchange.messages:
        return False
    if _message(messages[known]) != exchange.answer:
        return False
    results = messages[known + 1].content_as_list
    if messages[known + 1].role != "user" or not all(isinstance(b, ToolResultContent) for b in results):
        return False
    ids = [b.tool_use_id for b in results if isinstance(b, ToolResultContent)]
    return len(ids) == len(exchange.tool_use_ids) and set(ids) == exchange.tool_use_ids

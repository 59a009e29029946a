"""Playing a trace again: the recorded model answers drive the loop, the servers answer live.

A trace holds, per turn, the user's message, every model answer in order, who decided each tool
call and how, and what each tool returned. Replaying feeds the same answers back (no provider is
called), so the same tool calls reach today's servers; comparing what they return with the
recording tells a server's author whether anything changed. What the trace says was decided, or
answered to a server's question, is not read: a trace is someone else's words, never the user's yes.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from desktop_app.core.model.chat_model import ModelListener, ModelReply, ProviderUsage
from desktop_app.core.model.llm import ProviderError
from desktop_app.core.model.settings import ModelSettings

DIFF_CONTEXT: Final = 3


@dataclass
class RecordedTurn:
    """What one turn of a trace needs to be played again, and what it produced."""

    id: str
    message: str
    model: str
    attachments: list[Any] = field(default_factory=list)
    """As recorded: `{"uri", "server"}` objects, or plain URIs in older traces (`turn_trace.traced_attachments`)."""
    context: list[str] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    """The `ToolResult` events: the text each tool call gave the model."""


def recorded_turns(records: Iterable[dict[str, Any]]) -> list[RecordedTurn]:
    """The turns of a loaded trace, in order."""
    turns: dict[str, RecordedTurn] = {}
    for record in records:
        kind, turn_id = record.get("type"), str(record.get("turn", ""))
        if kind == "turn":
            turns[turn_id] = RecordedTurn(
                turn_id,
                str(record.get("message", "")),
                str(record.get("model", "")),
                list(record.get("attachments") or []),
                [str(text) for text in record.get("context") or []],
            )
            continue
        turn = turns.get(turn_id)
        if turn is None:
            continue
        if kind == "model_response":
            turn.responses.append(record)
        elif kind == "ToolResult":
            turn.results.append(record)
    return list(turns.values())


def called_tools(turns: Iterable[RecordedTurn]) -> Counter[str]:
    """How often the recorded model answers call each tool, by the name the model gave it, in order."""
    called: Counter[str] = Counter()
    for response in (response for turn in turns for response in turn.responses):
        message = response.get("message")
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                called[str(function.get("name", ""))] += 1
    return called


class RecordedModel:
    """A `ChatModel` that gives a turn's recorded answers back, one per request, without a provider."""

    def __init__(self, turn: RecordedTurn) -> None:
        self._answers = list(turn.responses)

    async def complete(
        self,
        settings: ModelSettings,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        api_key: str | None,
        listener: ModelListener,
    ) -> ModelReply:
        if not self._answers:
            raise ProviderError(f"{settings.model}: the trace has no more recorded answers for this turn")
        answer = self._answers.pop(0)
        message = dict(answer.get("message") or {"role": "assistant", "content": ""})
        if answer.get("error"):
            raise ProviderError(str(answer["error"]))
        if isinstance(content := message.get("content"), str) and content:
            listener.text(content)
        usage = answer.get("usage")
        figures = ProviderUsage(**usage) if isinstance(usage, dict) else None
        return ModelReply(message, figures)


@dataclass(frozen=True)
class Difference:
    """A tool call whose result is not the recorded one (or that did not run again, or ran anew)."""

    call_id: str
    name: str
    recorded: dict[str, Any] | None
    replayed: dict[str, Any] | None

    def diff(self) -> str:
        """A unified diff of the two results as the model read them."""
        before = _shown(self.recorded).splitlines(keepends=True)
        after = _shown(self.replayed).splitlines(keepends=True)
        lines = difflib.unified_diff(
            before, after, f"recorded {self.name} ({self.call_id})", f"replayed {self.name}", n=DIFF_CONTEXT
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _shown(result: dict[str, Any] | None) -> str:
    if result is None:
        return "(no result)\n"
    flags = [flag for flag in ("is_error", "denied", "cancelled") if result.get(flag)]
    head = f"[{', '.join(flags)}]\n" if flags else ""
    return head + str(result.get("text", "")) + "\n"


def _key(result: dict[str, Any]) -> tuple[str, bool, bool, bool]:
    flag = result.get
    return str(flag("text", "")), bool(flag("is_error")), bool(flag("denied")), bool(flag("cancelled"))


def compare_results(recorded: Sequence[dict[str, Any]], replayed: Sequence[dict[str, Any]]) -> list[Difference]:
    """Every tool call whose text or outcome (error, denied, cancelled) differs, in the recording's order."""
    now = {str(r.get("call_id")): r for r in replayed}
    differences: list[Difference] = []
    seen: set[str] = set()
    for result in recorded:
        call_id = str(result.get("call_id"))
        seen.add(call_id)
        again = now.get(call_id)
        if again is None or _key(again) != _key(result):
            differences.append(Difference(call_id, str(result.get("name", "")), result, again))
    for call_id, result in now.items():
        if call_id not in seen:
            differences.append(Difference(call_id, str(result.get("name", "")), None, result))
    return differences

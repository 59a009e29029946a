"""Tool arguments while the model still streams them, for views that render progressively.

The specification lets a host send `ui/notifications/tool-input-partial` with "best-effort
recovery of incomplete JSON, with unclosed structures automatically closed". `repair` does that;
`ToolInputStream` follows a streamed assistant message and reports each app tool's arguments
whenever they change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

MAX_ATTEMPTS: Final = 200
MAX_ARGUMENT_CHARS: Final = 200_000
"""Beyond this the partial view is not updated any more (the complete input still arrives)."""


def _closers(prefix: str) -> str | None:
    """What closes every open string, object and array of `prefix` (None if it is malformed)."""
    stack: list[str] = []
    in_string = escaped = False
    for char in prefix:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and (not stack or stack.pop() != char):
            return None
    if escaped:
        return None
    return ('"' if in_string else "") + "".join(reversed(stack))


def repair(text: str) -> dict[str, Any] | None:
    """The object a truncated JSON text most likely starts, or None when nothing sensible is there yet."""
    text = text.strip()
    if not text.startswith("{"):
        return None
    for end in range(len(text), max(0, len(text) - MAX_ATTEMPTS), -1):
        prefix = text[:end].rstrip()
        while prefix.endswith((",", ":")):
            prefix = prefix[:-1].rstrip()
        closers = _closers(prefix)
        if closers is None:
            continue
        try:
            value = json.loads(prefix + closers)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


@dataclass(frozen=True)
class PartialInput:
    call_id: str
    server: str
    tool: str
    arguments: dict[str, Any]


@dataclass
class _Streamed:
    call_id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    size: int = 0
    last: dict[str, Any] | None = None


class ToolInputStream:
    """Accumulates streamed tool-call deltas (OpenAI shape, as litellm gives them) per call index.

    `resolve(name)` says which (server, tool) an exposed name is when that tool has a view, else None;
    calls to other tools are followed but never reported.
    """

    def __init__(self, resolve: Callable[[str], tuple[str, str] | None]) -> None:
        self._resolve = resolve
        self._calls: dict[int, _Streamed] = {}

    def feed(self, deltas: Iterable[Any]) -> list[PartialInput]:
        changed: list[PartialInput] = []
        for delta in deltas:
            index = getattr(delta, "index", None)
            if not isinstance(index, int):
                continue
            call = self._calls.setdefault(index, _Streamed())
            call.call_id = getattr(delta, "id", None) or call.call_id
            function = getattr(delta, "function", None)
            if function is not None:
                call.name += getattr(function, "name", None) or ""
                piece = getattr(function, "arguments", None) or ""
                call.arguments.append(piece)
                call.size += len(piece)
            if call.call_id is None or not call.name or call.size > MAX_ARGUMENT_CHARS:
                continue
            target = self._resolve(call.name)
            if target is None:
                continue
            arguments = repair("".join(call.arguments))
            if arguments is not None and arguments != call.last:
                call.last = arguments
                changed.append(PartialInput(call.call_id, target[0], target[1], arguments))
        return changed

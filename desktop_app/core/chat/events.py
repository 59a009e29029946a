"""What a turn reports while it runs: the UI renders these, the CLI prints and records them.

Events are plain frozen dataclasses so any front end can consume them; `event_to_dict` gives
a JSON-safe form for transcripts (bytes are summarised, never inlined).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from desktop_app.core.content import ResourceContent


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's answer as it streams in."""

    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    """The model asked for a tool; `server` is None for the client-side (synthetic) tools."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    server: str | None
    tool: str | None


@dataclass(frozen=True)
class ApprovalNeeded:
    """A server tool call waits for the user's decision through the `Approver`."""

    call_id: str
    server: str
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolProgress:
    """A running server tool reported progress (`total` is None when the server does not know it)."""

    call_id: str
    progress: float
    total: float | None
    message: str | None


@dataclass(frozen=True)
class ToolBinary:
    """Bytes a tool returned (an image, an embedded file), kept for the UI; the model gets a descriptor."""

    mime_type: str
    data: bytes
    uri: str | None = None


@dataclass(frozen=True)
class ToolResult:
    """What a tool call returned, as the model reads it (`text`), plus what only the UI shows."""

    call_id: str
    name: str
    text: str
    is_error: bool = False
    denied: bool = False
    structured: Any = None
    binaries: tuple[ToolBinary, ...] = ()


@dataclass(frozen=True)
class ResourceRead:
    """`read_resource` (or an attachment) read a resource; `contents` carry the full data for the UI."""

    uri: str
    server: str
    contents: tuple[ResourceContent, ...]
    truncated: bool = False


@dataclass(frozen=True)
class PromptInjected:
    """`invoke_prompt` put a server prompt's messages into the conversation."""

    server: str
    name: str
    messages: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Usage:
    """Token usage of one model call (one iteration of the loop)."""

    iteration: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ErrorKind(StrEnum):
    PROVIDER = "provider"
    SERVER = "server"
    INPUT = "input"
    INTERNAL = "internal"


@dataclass(frozen=True)
class ChatError:
    """Something went wrong; `message` is one line a user can act on."""

    kind: ErrorKind
    message: str


FinishReason = Literal["stop", "max_iterations", "cancelled", "error"]


@dataclass(frozen=True)
class TurnFinished:
    """Always the last event of a turn. `text` is the final answer (or the stop message)."""

    reason: FinishReason
    text: str
    iterations: int


ChatEvent = (
    TextDelta
    | ToolCallStarted
    | ApprovalNeeded
    | ToolProgress
    | ToolResult
    | ResourceRead
    | PromptInjected
    | Usage
    | ChatError
    | TurnFinished
)


def _json_safe(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"bytes": len(value)}
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, StrEnum):
        return str(value)
    return value


def event_to_dict(event: ChatEvent) -> dict[str, Any]:
    """A JSON-safe dict: `{"type": "ToolResult", ...fields}`; binary data is given as its length."""
    fields = {f.name: _json_safe(getattr(event, f.name)) for f in dataclasses.fields(event)}
    if isinstance(event, ResourceRead):
        fields["contents"] = [
            {"uri": c.uri, "mime_type": c.mime_type, "size": c.size, "binary": c.is_binary, "error": c.error}
            for c in event.contents
        ]
    return {"type": type(event).__name__, **fields}

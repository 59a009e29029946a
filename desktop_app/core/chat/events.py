"""What a turn reports while it runs: the UI renders these, the CLI prints and records them.

Events are plain frozen dataclasses so any front end can consume them; `event_to_dict` gives
a JSON-safe form for transcripts (bytes are summarised, never inlined).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from desktop_app.core.content import ResourceContent
from desktop_app.core.trust import ToolHints

APP_RESULT_KEPT: Final = 600
"""Characters of an app view's own tool result a chat keeps and shows (the view has the whole result)."""


@dataclass(frozen=True)
class ModelCallStarted:
    """The turn asks the model now (first, and again after each round of tool results): until the answer
    streams in, the turn waits for the model. Momentary: not kept in history."""

    iteration: int


@dataclass(frozen=True)
class ServersConnecting:
    """The turn waits for these servers to finish connecting before it asks the model (the app has just
    started): `servers_connecting.wait_connected`. Momentary: not kept in history."""

    servers: tuple[str, ...]


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's answer as it streams in."""

    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    """The model asked for a tool; `server` is None for the client-side (synthetic) tools.

    For server tools it carries what the tool card shows: the tool's title and description,
    its annotations as the server states them, and whether the user trusts that server.
    """

    call_id: str
    name: str
    arguments: dict[str, Any]
    server: str | None
    tool: str | None
    title: str | None = None
    description: str | None = None
    hints: ToolHints | None = None
    trusted: bool = False


@dataclass(frozen=True)
class ToolInputPartial:
    """A tool with an MCP App view: its arguments so far, while the model still streams them."""

    call_id: str
    server: str
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ApprovalNeeded:
    """A server tool call waits for the user's decision (asked through the approval policy's asker)."""

    call_id: str
    server: str
    tool: str
    arguments: dict[str, Any]
    rule_paused: bool = False
    """Asked because of taint: a rule would have allowed it, but untrusted content is in the conversation."""
    taint: str | None = None


@dataclass(frozen=True)
class ToolDecision:
    """How a server tool call was settled, and by whom; `arguments` are the ones that run (or would have)."""

    call_id: str
    server: str
    tool: str
    allowed: bool
    decided_by: str
    """A `DecidedBy` value: user, rule, server_rule, chat, flag, nobody."""
    decision: str | None
    """A `Decision` value when someone answered; None when a rule let the call through."""
    arguments: dict[str, Any]
    edited: bool = False
    reason: str = ""
    """The user's reason for denying, as the model receives it."""
    rule_paused: bool = False
    taint: str | None = None


@dataclass(frozen=True)
class ConversationTainted:
    """Content from outside the user's control arrived; `reason` says what and from where."""

    reason: str


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
    cancelled: bool = False
    structured: Any = None
    binaries: tuple[ToolBinary, ...] = ()
    app_result: dict[str, Any] | None = None
    """For a tool with an MCP App view: the result as the server sent it (JSON), for the view."""


@dataclass(frozen=True)
class ResourceRead:
    """`read_resource` (or an attachment) read a resource; `contents` carry the full data for the UI."""

    uri: str
    server: str
    contents: tuple[ResourceContent, ...]
    truncated: bool = False
    size: int | None = None
    """Total bytes when the contents are not kept (a reopened conversation); else None."""

    @property
    def total_size(self) -> int:
        return self.size if self.size is not None else sum(c.size for c in self.contents)


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
    ServersConnecting
    | ModelCallStarted
    | TextDelta
    | ToolCallStarted
    | ToolInputPartial
    | ApprovalNeeded
    | ToolDecision
    | ConversationTainted
    | ToolProgress
    | ToolResult
    | ResourceRead
    | PromptInjected
    | Usage
    | ChatError
    | TurnFinished
)


# -- records: what a stored conversation keeps of what the user saw besides the turn's own events --------


@dataclass(frozen=True)
class Replaced:
    """Messages the user replaced (a retry, a regenerated answer, an edited message), kept as they were
    sent: the history shows them, the model no longer reads them. `events` are (message index within
    `messages`, stored event), as a conversation keeps its own."""

    reason: str
    """"retry", "regenerate" or "edit"."""
    messages: tuple[dict[str, Any], ...]
    events: tuple[tuple[int, dict[str, Any]], ...] = ()


@dataclass(frozen=True)
class QuestionRecord:
    """A question card the user saw in the chat (a form, a link, a sampling request…), as it ended."""

    server: str
    title: str
    """What the card asked, as plain text."""
    outcome: str
    """The card's last line: the answer, or why it ended without one."""
    call_id: str | None = None
    details: tuple[tuple[str, str], ...] = ()
    """What the question showed and what was answered (a form's fields and values), as label and text."""


@dataclass(frozen=True)
class AppToolRecord:
    """An MCP App view called a tool of its server, and how the call was settled."""

    server: str
    app: str
    """The view's `ui://` resource."""
    tool: str
    arguments: dict[str, Any]
    allowed: bool
    decided_by: str
    call_id: str | None = None
    """The model's tool call the view belongs to (None for a view opened from the resources)."""
    reason: str = ""


@dataclass(frozen=True)
class AppToolResult:
    """What an MCP App view's own tool call returned, as the text shown under its call (cut at `APP_RESULT_KEPT`)."""

    server: str
    app: str
    """The view's `ui://` resource."""
    tool: str
    text: str
    is_error: bool = False
    call_id: str | None = None
    """The model's tool call the view belongs to (None for a view opened from the resources)."""

    @classmethod
    def kept(cls, server: str, app: str, tool: str, text: str, is_error: bool, call_id: str | None) -> AppToolResult:
        """The record of a result, its text cut to what a chat keeps of it."""
        if len(text) > APP_RESULT_KEPT:
            text = text[: APP_RESULT_KEPT - 1] + "…"
        return cls(server, app, tool, text, is_error, call_id)


@dataclass(frozen=True)
class AppViewRecord:
    """An MCP App view shown in a tool card; reopened, the chat shows its last picture (a still, not the app)."""

    call_id: str
    server: str
    resource_uri: str
    snapshot: str = ""
    """A PNG of the view as the user last saw it, base64; empty when none could be taken."""


HistoryRecord = Replaced | QuestionRecord | AppToolRecord | AppToolResult | AppViewRecord


def record_to_dict(record: HistoryRecord) -> dict[str, Any]:
    """A record in the stored form of events (`{"type": ..., ...fields}`)."""
    return {
        "type": type(record).__name__,
        **{f.name: _json_safe(getattr(record, f.name)) for f in dataclasses.fields(record)},
    }


def _json_safe(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"bytes": len(value)}
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, StrEnum):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json_safe(getattr(value, f.name)) for f in dataclasses.fields(value)}
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


def kept_in_history(event: ChatEvent) -> bool:
    """Whether a stored conversation keeps this event, so reopening it shows what happened.

    Text is in the messages already; usage and progress are momentary; an input error sent
    nothing; a turn that simply answered needs no marker.
    """
    if isinstance(event, ChatError):
        return event.kind is not ErrorKind.INPUT
    if isinstance(event, TurnFinished):
        return event.reason in ("cancelled", "max_iterations")
    return isinstance(event, ToolCallStarted | ToolDecision | ToolResult | ResourceRead | ConversationTainted)


def event_from_dict(data: dict[str, Any]) -> ChatEvent | HistoryRecord | None:
    """Rebuild a stored event or record; None for a kind or shape this version cannot read.

    Resource contents and binary data are stored as summaries, so they come back without bytes.
    """
    body = {k: v for k, v in data.items() if k != "type"}
    try:
        kind = data.get("type")
        if kind == "ToolCallStarted":
            hints = body.pop("hints", None)
            return ToolCallStarted(**body, hints=ToolHints(**hints) if isinstance(hints, dict) else None)
        if kind == "ToolResult":
            binaries = body.pop("binaries", [])
            kept = tuple(ToolBinary(b.get("mime_type", ""), b"", b.get("uri")) for b in binaries)
            return ToolResult(**body, binaries=kept)
        if kind == "ResourceRead":
            size = sum(int(c.get("size") or 0) for c in body.pop("contents", []))
            return ResourceRead(**{**body, "size": size}, contents=())
        if kind == "ChatError":
            return ChatError(ErrorKind(body["kind"]), body["message"])
        if kind == "Replaced":
            events = tuple((int(index), dict(event)) for index, event in body.get("events", []))
            return Replaced(str(body["reason"]), tuple(dict(m) for m in body["messages"]), events)
        if kind == "QuestionRecord":
            details = tuple((str(label), str(text)) for label, text in body.pop("details", []))
            return QuestionRecord(**body, details=details)
        simple: dict[str, type[Any]] = {
            "ToolDecision": ToolDecision,
            "ConversationTainted": ConversationTainted,
            "TurnFinished": TurnFinished,
            "AppToolRecord": AppToolRecord,
            "AppToolResult": AppToolResult,
            "AppViewRecord": AppViewRecord,
        }
        return simple[kind](**body) if kind in simple else None
    except (TypeError, ValueError, KeyError, AttributeError):
        return None

"""The JSON-RPC a view speaks, parsed and checked: nothing a view sends is trusted as it arrives.

Every message is parsed here into a `Request`, `Notification` or `Response`, or refused with the
JSON-RPC error the view gets back. Parameters of the methods the host handles are checked against
the MCP Apps specification (2026-01-26) before any handler sees them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
REFUSED: Final = -32000
"""Implementation-defined: the host or the user said no (the specification's own choice)."""

MAX_MESSAGE_CHARS: Final = 1_000_000
MAX_TEXT_CHARS: Final = 100_000
"""Cap on text a view puts in front of the model or the user (a message, a context update)."""
DISPLAY_MODES: Final = ("inline", "fullscreen", "pip")
LOG_LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LINK_SCHEMES: Final = ("http", "https", "mailto")

RequestId = int | str


@dataclass(frozen=True)
class Request:
    id: RequestId
    method: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Notification:
    method: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Response:
    id: RequestId
    result: dict[str, Any] | None
    error: dict[str, Any] | None


Message = Request | Notification | Response


class ProtocolError(Exception):
    """A message, or its parameters, broke the protocol; `id` is set when the view can be told."""

    def __init__(self, code: int, message: str, id: RequestId | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id


def _valid_id(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, str) and len(value) <= 200)


def parse(text: str) -> Message:
    """One JSON-RPC 2.0 message from a view's JSON text (batches are not part of MCP Apps)."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise ProtocolError(INVALID_REQUEST, f"message of {len(text):,} characters is over the limit")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(PARSE_ERROR, "not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError(INVALID_REQUEST, "a message must be a JSON object")
    raw_id = data.get("id")
    known_id = raw_id if _valid_id(raw_id) else None
    if data.get("jsonrpc") != "2.0":
        raise ProtocolError(INVALID_REQUEST, 'missing "jsonrpc": "2.0"', known_id)
    if "method" in data:
        method = data["method"]
        if not isinstance(method, str) or not method or len(method) > 200:
            raise ProtocolError(INVALID_REQUEST, "the method must be a non-empty string", known_id)
        params = data.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise ProtocolError(INVALID_PARAMS, "params must be an object", known_id)
        if "id" not in data:
            return Notification(method, params)
        if known_id is None:
            raise ProtocolError(INVALID_REQUEST, "the id must be an integer or a string")
        return Request(known_id, method, params)
    if known_id is None:
        raise ProtocolError(INVALID_REQUEST, "neither a request, a notification nor a response")
    result, error = data.get("result"), data.get("error")
    if (result is None) == (error is None) or not isinstance(result if error is None else error, dict):
        raise ProtocolError(INVALID_REQUEST, "a response needs exactly one of result or error, an object")
    return Response(known_id, result, error)


def request(id: RequestId, method: str, params: Mapping[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": dict(params)})


def notification(method: str, params: Mapping[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": dict(params)})


def result(id: RequestId, value: Mapping[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id, "result": dict(value)})


def error(id: RequestId | None, code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})


# -- parameters of what the host handles ---------------------------------------------------------


def _bad(message: str) -> ProtocolError:
    return ProtocolError(INVALID_PARAMS, message)


def _string(params: Mapping[str, Any], key: str, *, limit: int = 2000) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise _bad(f"{key} must be a non-empty string")
    if len(value) > limit:
        raise _bad(f"{key} is longer than {limit:,} characters")
    return value


@dataclass(frozen=True)
class Initialize:
    app_name: str
    app_version: str
    protocol_version: str
    display_modes: tuple[str, ...]


def initialize_params(params: Mapping[str, Any]) -> Initialize:
    info = params.get("appInfo")
    capabilities = params.get("appCapabilities")
    if not isinstance(info, dict):
        raise _bad("appInfo must be an object with name and version")
    if not isinstance(capabilities, dict):
        raise _bad("appCapabilities must be an object")
    modes = capabilities.get("availableDisplayModes", [])
    if not isinstance(modes, list) or not all(m in DISPLAY_MODES for m in modes):
        raise _bad("appCapabilities.availableDisplayModes must list inline, fullscreen or pip")
    return Initialize(
        _string(info, "name", limit=200),
        _string(info, "version", limit=100),
        _string(params, "protocolVersion", limit=50),
        tuple(modes),
    )


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


def tool_call_params(params: Mapping[str, Any]) -> ToolCall:
    arguments = params.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise _bad("arguments must be an object")
    return ToolCall(_string(params, "name", limit=200), arguments)


def resource_read_params(params: Mapping[str, Any]) -> str:
    return _string(params, "uri", limit=4000)


def open_link_params(params: Mapping[str, Any]) -> str:
    url = _string(params, "url", limit=4000)
    try:
        parts = urlsplit(url)
    except ValueError:
        raise _bad("url is not a valid URL") from None
    if parts.scheme.lower() not in LINK_SCHEMES or (parts.scheme.lower() != "mailto" and not parts.hostname):
        raise _bad("only http, https and mailto links can be opened")
    if any(ord(c) < 32 or c.isspace() for c in url):
        raise _bad("url contains spaces or control characters")
    return url


def content_text(blocks: Any, *, field: str) -> str:
    """The text of content blocks; only text blocks are supported (declared in hostCapabilities)."""
    if isinstance(blocks, dict):
        blocks = [blocks]  # the specification's prose shows one block; its schema an array
    if not isinstance(blocks, list) or not blocks:
        raise _bad(f"{field} must be a list of content blocks")
    texts: list[str] = []
    for block in blocks:
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            raise _bad(f"{field} may hold only text blocks here")
        texts.append(block["text"])
    text = "\n\n".join(texts)
    if not text.strip():
        raise _bad(f"{field} is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise _bad(f"{field} is longer than {MAX_TEXT_CHARS:,} characters")
    return text


def message_params(params: Mapping[str, Any]) -> str:
    if params.get("role") != "user":
        raise _bad('role must be "user"')
    return content_text(params.get("content"), field="content")


def model_context_params(params: Mapping[str, Any]) -> str:
    """What the model will read: the text blocks, then the structured content as JSON."""
    parts: list[str] = []
    if params.get("content") is not None:
        parts.append(content_text(params["content"], field="content"))
    structured = params.get("structuredContent")
    if structured is not None:
        if not isinstance(structured, dict):
            raise _bad("structuredContent must be an object")
        parts.append(json.dumps(structured, ensure_ascii=False))
    text = "\n\n".join(parts)
    if len(text) > MAX_TEXT_CHARS:
        raise _bad(f"the context is longer than {MAX_TEXT_CHARS:,} characters")
    return text


def display_mode_params(params: Mapping[str, Any]) -> str:
    mode = params.get("mode")
    if mode not in DISPLAY_MODES:
        raise _bad("mode must be inline, fullscreen or pip")
    return str(mode)


def size_params(params: Mapping[str, Any]) -> tuple[int | None, int | None]:
    def dimension(key: str) -> int | None:
        value = params.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise _bad(f"{key} must be a non-negative number")
        return min(int(value), 100_000)

    return dimension("width"), dimension("height")


def log_params(params: Mapping[str, Any]) -> tuple[str, str]:
    level = params.get("level")
    if level not in LOG_LEVELS:
        raise _bad("level must be a syslog level name")
    data = params.get("data")
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    logger = params.get("logger")
    prefix = f"[{logger[:80]}] " if isinstance(logger, str) and logger else ""
    return str(level), (prefix + text)[:2000]

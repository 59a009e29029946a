"""How a server connection fails, in the words the user reads.

The errors requests raise when a server cannot answer, and `describe_error`, which turns any
failure (anyio groups, MCP errors, HTTP and OS errors) into one user-facing line. Kept apart
from the connection so viewers and the chat engine can describe failures without it.
"""

from __future__ import annotations

import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT


class ServerUnavailableError(RuntimeError):
    """The server cannot take requests now: not ready, or its connection died mid-request."""


class ServerRequestTimeout(TimeoutError):
    """The server did not answer within its configured timeout."""


class ConnectionLost(Exception):
    """Raised inside the owner task when the transport ended under a live session."""


class ProtocolViolation(Exception):
    """The server broke the protocol in a way worth naming (its message is the user-facing reason)."""


def describe_error(exc: BaseException) -> str:
    """A one-line, user-facing reason, reaching through anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, ConnectionLost | ProtocolViolation):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, MCPError):
        if exc.code == CONNECTION_CLOSED:
            return "the server closed the connection"
        if exc.code == REQUEST_TIMEOUT:
            return exc.message
        return f"server error {exc.code}: {exc.message}"
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"HTTP {exc.response.status_code} from {exc.request.url}"
    if isinstance(exc, httpx2.TransportError):
        return f"cannot reach the server: {str(exc) or transport_failure(exc)}"
    if isinstance(exc, TimeoutError):
        return str(exc) or "timed out"
    # Users read this line: it never names an exception class (they mean nothing to them).
    return str(exc) or "an unexpected error, with no details (the app's log may say more)"


def transport_failure(exc: httpx2.TransportError) -> str:
    """What went wrong on the wire, in words, for errors that carry no message."""
    if isinstance(exc, httpx2.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx2.ConnectError):
        return "the connection was refused or the address is unreachable"
    return "the connection broke"


def is_connection_loss(exc: BaseException) -> bool:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return exc.code == CONNECTION_CLOSED
    return isinstance(exc, httpx2.TransportError | ConnectionError | BrokenPipeError)

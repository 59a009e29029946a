"""The session's view of a transport, watched: its end, its garbage, and answers nobody asked for.

The SDK's transports tell a waiting request that the connection closed, but nobody tells an
idle host; and a response to a request that was never sent is dropped (or, worse, taken as the
answer to a handshake request that shares its id) without a word. Wrapping both streams lets the
owning task learn of these the moment they happen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import anyio
import httpx2
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse, RequestId

from desktop_app.core.server_errors import describe_error

CLOSED_REASON = "the server closed the connection"


@dataclass(frozen=True)
class TransportHooks:
    """Where a transport reports what the session does not."""

    on_stderr: Callable[[str], None]
    on_garbage: Callable[[Exception], None]
    """A line or event that is not a JSON-RPC message (the session skips it)."""
    on_closed: Callable[[str], None]
    """The transport or the session's reading ended, for the given reason: the connection is dead."""
    on_bad_bytes: Callable[[bytes], None]
    """Bytes on a stdio server's stdout that are not UTF-8 (read as U+FFFD)."""
    on_unsolicited: Callable[[RequestId], None]
    """A response to a request id that was never sent or was already answered."""
    auth: httpx2.Auth | None = None
    """What an HTTP or SSE transport sends with each request (the sign-in's, see `core.auth`)."""
    on_exit: Callable[[int], None] = lambda _returncode: None
    """A stdio server's process ended with this return code (reported once the SDK has stopped it)."""
    note: Callable[[str, str], None] = lambda _level, _text: None
    """Adds a line (level, text) of MCP Desk's own to the server's log (the sandbox's proxy refusing a host)."""


@dataclass
class _Ledger:
    """Ids of requests sent and not yet answered."""

    pending: set[RequestId]


class _ClosedOnExit:
    """`async with` closes the stream, as the SDK's streams do."""

    async def aclose(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class WatchedReadStream(_ClosedOnExit):
    """Delegates to the SDK's read stream; reports its end (for any reason), garbage and stray answers."""

    def __init__(self, inner: Any, hooks: TransportHooks, ledger: _Ledger) -> None:
        self._inner = inner
        self._hooks = hooks
        self._ledger = ledger

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._hooks.on_closed(CLOSED_REASON)
            raise
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:
            self._hooks.on_closed(f"reading from the server failed: {describe_error(exc)}")
            raise
        if isinstance(item, Exception):
            self._hooks.on_garbage(item)
        elif isinstance(item.message, JSONRPCResponse | JSONRPCError) and item.message.id is not None:
            request_id = coerce_request_id(item.message.id)
            if request_id in self._ledger.pending:
                self._ledger.pending.discard(request_id)
            else:
                self._hooks.on_unsolicited(item.message.id)
        return item

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        # The session stops reading only when it ends; whatever ended it, the connection is over.
        self._hooks.on_closed(CLOSED_REASON)
        await self._inner.aclose()


class WatchedWriteStream(_ClosedOnExit):
    """Delegates to the SDK's write stream, noting the id of every request sent."""

    def __init__(self, inner: Any, ledger: _Ledger) -> None:
        self._inner = inner
        self._ledger = ledger

    async def send(self, item: SessionMessage, /) -> None:
        if isinstance(item.message, JSONRPCRequest):
            self._ledger.pending.add(coerce_request_id(item.message.id))
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()


def watch(read: Any, write: Any, hooks: TransportHooks) -> tuple[WatchedReadStream, WatchedWriteStream]:
    """Both streams of a transport, watched through `hooks`."""
    ledger = _Ledger(set())
    return WatchedReadStream(read, hooks, ledger), WatchedWriteStream(write, ledger)

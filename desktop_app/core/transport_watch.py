"""One session's account of its transport: whether and why it ended, and what it got wrong.

The watched streams report through `hooks()`; the owning task waits on `dead` and words its
failure with `handshake_failure`. Every fault lands in the server's log once, in plain words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

import httpx2
from mcp_types import RequestId
from pydantic import ValidationError

from desktop_app.core.server_errors import ProtocolViolation, describe_error
from desktop_app.core.watched_streams import CLOSED_REASON, TransportHooks

Note = Callable[[str, str], None]
"""Adds a line (level, text) to the server's log."""

_QUOTED_CHARS: Final = 120
_SHOWN_BYTES: Final = 32


class TransportWatch:
    """Created per session; `dead` is set the moment the transport or the session's reading ends."""

    def __init__(self, note: Note) -> None:
        self._note = note
        self.dead = asyncio.Event()
        self.dead_reason = CLOSED_REASON
        self.handshaking = False
        self._unsolicited: RequestId | None = None
        self._bad_bytes_noted = False

    def hooks(
        self, *, on_stderr: Callable[[str], None], on_exit: Callable[[int], None], auth: httpx2.Auth | None
    ) -> TransportHooks:
        """The hooks for this session's transport; stderr lines, the exit code and auth are the connection's."""
        return TransportHooks(
            on_stderr=on_stderr,
            on_garbage=self._on_garbage,
            on_closed=self.mark_dead,
            on_bad_bytes=self._on_bad_bytes,
            on_unsolicited=self._on_unsolicited,
            auth=auth,
            on_exit=on_exit,
            note=self._note,
        )

    def mark_dead(self, reason: str) -> None:
        """The first reason wins: later ones are consequences of it."""
        if not self.dead.is_set():
            self.dead_reason = reason
            self.dead.set()

    def handshake_failure(self, exc: Exception, timeout: float) -> Exception:
        """What to report when the handshake failed: what the server did, not what followed from it."""
        if self._unsolicited is not None:
            return ProtocolViolation(
                f"the server sent a response to a request it was never sent (id {self._unsolicited!r}) "
                "before the handshake"
            )
        if isinstance(exc, TimeoutError):
            return TimeoutError(f"no answer to the MCP handshake within {timeout:g} s")
        return exc

    def _on_garbage(self, exc: Exception) -> None:
        self._note("warning", f"ignored a message that is not valid JSON-RPC: {describe_garbage(exc)}")

    def _on_bad_bytes(self, data: bytes) -> None:
        if self._bad_bytes_noted:
            return
        self._bad_bytes_noted = True
        shown = data[:_SHOWN_BYTES].hex(" ") + (" …" if len(data) > _SHOWN_BYTES else "")
        self._note(
            "warning",
            f"the server wrote bytes that are not UTF-8 to stdout ({shown}); they were replaced with \ufffd "
            "(later ones are replaced without a note)",
        )

    def _on_unsolicited(self, request_id: RequestId) -> None:
        if self.handshaking and self._unsolicited is None:
            self._unsolicited = request_id
        what = f"a request that was never sent or was already answered (id {request_id!r})"
        self._note("warning", f"ignored a response to {what}")


def describe_garbage(exc: Exception) -> str:
    """A line the session skipped, quoted (shortened), and why it is not a JSON-RPC message."""
    if not isinstance(exc, ValidationError) or not exc.errors():
        return describe_error(exc)[:300]
    first = exc.errors(include_url=False)[0]
    shown = repr(first.get("input"))
    if len(shown) > _QUOTED_CHARS:
        shown = shown[:_QUOTED_CHARS] + "…"
    why = first["msg"] if first["type"] == "json_invalid" else "not a JSON-RPC message"
    return f"{shown} ({why})"

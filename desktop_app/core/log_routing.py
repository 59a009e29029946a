"""Where log records go: a server's own log, the debug log on stderr, and never stdout.

Libraries log freely (the MCP SDK, httpx2, litellm, MuPDF through `mupdf.load`). MCP Desk installs
one handler on the root logger. A record made while a server connection's tasks run (the SDK's
reader, its session) goes to that server's log, as one line; everything else goes to stderr at
the console level: the window shows warnings there, `mcp-desk run` nothing unless `--debug`.
Every record passes `RedactingFilter` first; on the console, its control characters are written out
(`terminal_text`): records quote what servers sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import sys
import threading
from collections.abc import Callable
from typing import Final, TextIO

from desktop_app.core.log_redaction import RedactingFilter, remember_environment_secrets
from desktop_app.core.terminal_text import printable

ServerNote = Callable[[str, str], None]
"""Adds (level, text) to one server's log."""

_server_note: contextvars.ContextVar[ServerNote | None] = contextvars.ContextVar("server_note", default=None)
_inside = threading.local()
_FORMAT: Final = "%(levelname)s %(name)s: %(message)s"
# Reported by the connection itself, with the offending line quoted: logging them again would say it twice.
_SAID_BY_THE_HOST: Final = frozenset({("mcp.client.stdio", "Failed to parse JSONRPC message from server")})


def server_log_context(note: ServerNote) -> contextvars.Context:
    """A context to run a connection's owner task in: records logged there, and in the tasks and
    threads it starts, go to `note` (called on the event loop's thread)."""
    loop = asyncio.get_running_loop()
    owner = threading.get_ident()

    def thread_safe(level: str, text: str) -> None:
        if threading.get_ident() == owner:
            note(level, text)
        else:
            with contextlib.suppress(RuntimeError):  # the loop has closed: the server's log is gone too
                loop.call_soon_threadsafe(note, level, text)

    context = contextvars.copy_context()
    context.run(_server_note.set, thread_safe)
    return context


class _PrintableFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


class _Router(logging.StreamHandler[TextIO]):
    def __init__(self, console_level: int | None, stream: TextIO) -> None:
        super().__init__(stream)
        self.console_level = console_level
        self.setFormatter(_PrintableFormatter(_FORMAT))
        self.addFilter(RedactingFilter())

    def emit(self, record: logging.LogRecord) -> None:
        note = _server_note.get()
        # Not while already noting: a record logged by the note's own listeners would loop.
        if note is not None and record.levelno >= logging.WARNING and not getattr(_inside, "noting", False):
            if (record.name, record.msg) not in _SAID_BY_THE_HOST:
                _inside.noting = True
                try:
                    note(record.levelname.lower(), _one_line(record))
                finally:
                    _inside.noting = False
            if self.console_level is None or self.console_level > logging.INFO:
                return  # in the server's log; the console has it too only in debug mode
        if self.console_level is not None and record.levelno >= self.console_level:
            super().emit(record)


def _one_line(record: logging.LogRecord) -> str:
    """The message and the first line of its exception: a server's log has no room for tracebacks."""
    text = f"{record.name}: {record.getMessage()}"
    reason = str(record.exc_info[1] or "") if record.exc_info else ""
    return f"{text} ({reason.splitlines()[0]})" if reason else text


def install_logging(console_level: int | None, stream: TextIO | None = None) -> logging.Handler:
    """Route every record as described above; replaces a previous install. `None`: no console output."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _Router)]:
        root.removeHandler(handler)
    router = _Router(console_level, stream or sys.stderr)
    root.addHandler(router)
    root.setLevel(min(console_level or logging.WARNING, logging.WARNING))
    remember_environment_secrets()
    return router

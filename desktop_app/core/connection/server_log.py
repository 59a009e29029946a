"""What one server wrote to stderr and what the host noted about it, with its secrets masked.

Every line passes `redact` with the secret values of the server's current configuration, so a
key that reached the server's environment never shows in the log view or a status reason.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Final

from desktop_app.core.events import Event, LogEntry, LogLine, LogSource
from desktop_app.core.expansion import redact

STDERR_LINES: Final = 500
LOG_LINES: Final = 2000


class ServerLog:
    """The server's stderr lines and log entries, kept bounded and published as they arrive."""

    def __init__(self, server: Callable[[], str], publish: Callable[[Event], None]) -> None:
        self._server = server
        self._publish = publish
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self.entries: deque[LogEntry] = deque(maxlen=LOG_LINES)
        self.secret_values: frozenset[str] = frozenset()
        """The values to mask: those the current configuration resolved from secrets."""
        self._stderr_count = 0
        self._attempt_from = 0

    def new_attempt(self) -> None:
        """A new connection attempt starts: its stderr tail leaves out the earlier attempts' lines."""
        self._attempt_from = self._stderr_count

    def on_stderr(self, line: str) -> None:
        line = self.redact(line)
        self.stderr.append(line)
        self._stderr_count += 1
        self.add("stderr", "info", line)

    def note(self, level: str, text: str) -> None:
        """A line of the host's own about this server."""
        self.add("host", level, text)

    def add(self, source: LogSource, level: str, text: str) -> None:
        entry = LogEntry(time.time(), source, level, self.redact(text))
        self.entries.append(entry)
        self._publish(LogLine(self._server(), entry))

    def redact(self, text: str) -> str:
        return redact(text, self.secret_values)

    def stderr_tail(self, lines: int = 20) -> tuple[str, ...]:
        """The last stderr lines of the latest attempt (earlier attempts' lines would only repeat)."""
        lines = min(lines, self._stderr_count - self._attempt_from)
        return tuple(list(self.stderr)[-lines:]) if lines > 0 else ()

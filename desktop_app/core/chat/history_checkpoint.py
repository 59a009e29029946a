"""The history's write-ahead log moved into the database by a thread of its own, not by the caller.

SQLite in WAL mode copies the log into the database (a checkpoint) once it passes 1,000 pages, in
the connection whose commit crossed that line, and syncs the file to disk. The history commits on
the event loop, so that commit stalled the window: 7-20 ms on this machine's SSD, far more on a
slow disk. So the writer's automatic checkpoints are off, and every `EVERY` commits a short-lived
thread checkpoints through a connection of its own (PASSIVE: it never blocks the writer nor waits
for readers). The last connection to close checkpoints what is left, as SQLite always does.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Final

from desktop_app.core.chat.history_file import BUSY_TIMEOUT

EVERY: Final = 100
"""Commits between checkpoints: a message or an event is a few pages, so the log stays near the
size at which SQLite would checkpoint by itself."""
JOIN_TIMEOUT: Final = 2.0

log = logging.getLogger(__name__)


class BackgroundCheckpoints:
    """Checkpoints of the database at `path` off the committing thread, one at a time."""

    def __init__(self, path: Path, every: int = EVERY) -> None:
        self.path = path
        self.every = every
        self._commits = 0
        self._thread: threading.Thread | None = None

    @staticmethod
    def take_over(db: sqlite3.Connection) -> None:
        """Turn off `db`'s own checkpoints: this object runs them."""
        db.execute("PRAGMA wal_autocheckpoint=0")

    def committed(self) -> None:
        """One more commit; every `every`-th starts a checkpoint unless one still runs."""
        self._commits += 1
        if self._commits % self.every == 0 and not self.running:
            self._thread = threading.Thread(target=self._checkpoint, name="history-checkpoint", daemon=True)
            self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def close(self) -> None:
        """Wait for a checkpoint under way (briefly: an interrupted one is redone by SQLite on next open)."""
        if self._thread is not None:
            self._thread.join(JOIN_TIMEOUT)

    def _checkpoint(self) -> None:
        try:
            with contextlib.closing(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT)) as db:
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as error:  # locked or gone: the next one, or the last close, catches up
            log.debug("history checkpoint skipped: %s", error)

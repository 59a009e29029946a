"""Opening the chat history so that no state of its file stops the app.

- A file that is not a database (a crash mid-write, a bad restore, a folder in its place) is renamed
  aside, `conversations.sqlite3.corrupt-<date>` with its `-wal`/`-shm`, and a fresh history starts.
- A database another program holds (a backup tool, an sqlite shell's `BEGIN EXCLUSIVE`) is waited
  for a moment (`BUSY_TIMEOUT`); then this run keeps its chats in memory only and the file is left alone.

Either way the app starts, with a notice saying what happened and where the old history is.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.chat.conversations import ConversationStore
from desktop_app.core.chat.history_file import BUSY_TIMEOUT, COMPANIONS
from desktop_app.core.state_file import set_aside

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OpenedHistory:
    store: ConversationStore
    notice: str | None = None
    """What to tell the user about the history file (None: it opened as it should)."""


def open_history(path: Path, busy_timeout: float = BUSY_TIMEOUT) -> OpenedHistory:
    """The history at `path`, whatever state its file is in (see the module's docstring)."""
    try:
        return OpenedHistory(ConversationStore(path, busy_timeout=busy_timeout))
    except sqlite3.OperationalError as exc:
        if _held_by_another(exc):
            log.warning("the chat history %s is in use by another program (%s): chats are not kept", path, exc)
            notice = (
                f"Your chat history is in use by another program, so this window cannot open it:\n\n{path}\n\n"
                "Chats from now on are kept until MCP Desk quits, not saved. Close the other program "
                "(a backup tool, an sqlite shell) and start MCP Desk again to see your saved chats."
            )
            return OpenedHistory(ConversationStore(path, unsaved=True), notice)
        problem: Exception = exc
    except (sqlite3.DatabaseError, OSError) as exc:
        problem = exc
    return _start_afresh(path, problem, busy_timeout)


def _held_by_another(exc: sqlite3.OperationalError) -> bool:
    return exc.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(exc)


def _start_afresh(path: Path, problem: Exception, busy_timeout: float) -> OpenedHistory:
    """The damaged file renamed aside and an empty history in its place (in memory if even that fails)."""
    try:
        aside = set_aside(path, COMPANIONS)
        store = ConversationStore(path, busy_timeout=busy_timeout)
    except (sqlite3.DatabaseError, OSError) as exc:
        log.warning("the chat history %s cannot be read (%s) nor replaced (%s): chats are not kept", path, problem, exc)
        notice = (
            f"Your chat history could not be read ({problem}) and no new one could be made in its place "
            f"({exc}):\n\n{path}\n\nChats from now on are kept until MCP Desk quits, not saved."
        )
        return OpenedHistory(ConversationStore(path, unsaved=True), notice)
    log.warning("the chat history %s could not be read (%s): kept as %s, starting a new one", path, problem, aside)
    notice = (
        f"Your chat history could not be read ({problem}), so MCP Desk started a new one. "
        f"The old file is kept, untouched, as:\n\n{aside}"
    )
    return OpenedHistory(store, notice)

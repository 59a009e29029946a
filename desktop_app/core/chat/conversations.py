"""Conversations kept in SQLite (WAL) in the data dir: each message is committed once complete.

A message is written in its own short transaction the moment it is whole, so killing the
app mid-turn loses at most the message in progress. Messages are stored in the provider
format they are sent in (OpenAI chat messages), so resuming needs no conversion.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from desktop_app.core.paths import data_dir

DB_FILENAME: Final = "conversations.sqlite3"
DEFAULT_TITLE: Final = "New chat"
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    body TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (conversation_id, position)
);
"""


class ConversationNotFoundError(LookupError):
    """No stored conversation has this id."""


@dataclass(frozen=True)
class ConversationInfo:
    id: str
    title: str
    created: float
    updated: float
    message_count: int


class ConversationStore:
    """The conversations database. Calls are short local transactions, safe on the event loop."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL is durable against a killed process (not against power loss) and much faster.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)

    @classmethod
    def open_default(cls) -> ConversationStore:
        return cls(data_dir() / DB_FILENAME)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def create(self, title: str = DEFAULT_TITLE) -> ConversationInfo:
        now = time.time()
        info = ConversationInfo(uuid.uuid4().hex, title, now, now, 0)
        with self._transaction() as db:
            db.execute("INSERT INTO conversations VALUES (?, ?, ?, ?)", (info.id, title, now, now))
        return info

    def list(self) -> builtins.list[ConversationInfo]:
        """Every conversation, the most recently updated first."""
        rows = self._db.execute(
            "SELECT c.id, c.title, c.created, c.updated, COUNT(m.position) FROM conversations c "
            "LEFT JOIN messages m ON m.conversation_id = c.id GROUP BY c.id ORDER BY c.updated DESC"
        ).fetchall()
        return [ConversationInfo(*row) for row in rows]

    def info(self, conversation_id: str) -> ConversationInfo:
        row = self._db.execute(
            "SELECT c.id, c.title, c.created, c.updated, COUNT(m.position) FROM conversations c "
            "LEFT JOIN messages m ON m.conversation_id = c.id WHERE c.id = ? GROUP BY c.id",
            (conversation_id,),
        ).fetchone()
        if row is None:
            raise ConversationNotFoundError(f"no conversation {conversation_id!r}")
        return ConversationInfo(*row)

    def messages(self, conversation_id: str) -> builtins.list[dict[str, Any]]:
        self.info(conversation_id)
        rows = self._db.execute(
            "SELECT body FROM messages WHERE conversation_id = ? ORDER BY position", (conversation_id,)
        ).fetchall()
        return [json.loads(body) for (body,) in rows]

    def append(self, conversation_id: str, message: dict[str, Any]) -> None:
        """Commit one complete message at the end of the conversation."""
        body = json.dumps(message, ensure_ascii=False)
        now = time.time()
        with self._transaction() as db:
            (position,) = db.execute(
                "SELECT COALESCE(MAX(position) + 1, 0) FROM messages WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
            updated = db.execute("UPDATE conversations SET updated = ? WHERE id = ?", (now, conversation_id))
            if updated.rowcount == 0:
                raise ConversationNotFoundError(f"no conversation {conversation_id!r}")
            db.execute("INSERT INTO messages VALUES (?, ?, ?, ?)", (conversation_id, position, body, now))

    def rename(self, conversation_id: str, title: str) -> None:
        if not title.strip():
            raise ValueError("a conversation title cannot be empty")
        with self._transaction() as db:
            cursor = db.execute("UPDATE conversations SET title = ? WHERE id = ?", (title.strip(), conversation_id))
            if cursor.rowcount == 0:
                raise ConversationNotFoundError(f"no conversation {conversation_id!r}")

    def delete(self, conversation_id: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))


@dataclass
class Conversation:
    """The history a turn runs on; with a store, each appended message is committed at once."""

    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    messages: list[dict[str, Any]] = field(default_factory=list)
    store: ConversationStore | None = None

    @classmethod
    def start(cls, store: ConversationStore | None = None, title: str = DEFAULT_TITLE) -> Conversation:
        """A new conversation, stored when a store is given."""
        if store is None:
            return cls()
        return cls(id=store.create(title).id, store=store)

    @classmethod
    def resume(cls, store: ConversationStore, conversation_id: str) -> Conversation:
        return cls(id=conversation_id, messages=store.messages(conversation_id), store=store)

    def append(self, message: dict[str, Any]) -> None:
        if self.store is not None:
            self.store.append(self.id, message)
        self.messages.append(message)

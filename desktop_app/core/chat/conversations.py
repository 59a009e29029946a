"""Conversations kept in SQLite (WAL) in the data dir: each message is committed once complete.

A message is written in its own short transaction the moment it is whole, so killing the
app mid-turn loses at most the message in progress. Messages are stored in the provider
format they are sent in (OpenAI chat messages), so resuming needs no conversion beyond the
repair of tool calls a crash left without a result (`history_repair`).

Beside the messages, a conversation keeps what only the user saw (the `events` table: which
server ran a call, the arguments that really ran, who allowed it, chips, "Stopped." markers,
question cards, app views, replaced answers), each at the message position it happened at, and
its taint: the reasons untrusted content is in it, which keep a resumed chat as careful as it
was. The text of the user's and the model's messages is indexed (SQLite's FTS5, trigrams) so
Find in history matches any part of a word at once. Older databases gain all of these on open.
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

from desktop_app.core.chat.events import Replaced, record_to_dict
from desktop_app.core.chat.history_checkpoint import BackgroundCheckpoints
from desktop_app.core.chat.history_file import BUSY_TIMEOUT, prepare_history_file
from desktop_app.core.chat.history_repair import Message, missing_results
from desktop_app.core.chat.history_search import INDEX, find_in_history, message_text
from desktop_app.core.trust import MAX_TAINT_REASONS

DEFAULT_TITLE: Final = "New chat"
_LIST: Final = (
    "SELECT c.id, c.title, c.created, c.updated, COUNT(m.position) FROM conversations c "
    "LEFT JOIN messages m ON m.conversation_id = c.id GROUP BY c.id"
)
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
CREATE TABLE IF NOT EXISTS events (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    position INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq)
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


@dataclass(frozen=True)
class SearchHit:
    """A conversation that matches a search: its title, and where a message matched (empty: the title did)."""

    info: ConversationInfo
    snippet: str


class ConversationStore:
    """The conversations database. Calls are short local transactions, safe on the event loop.

    The file and its `-wal`/`-shm` are private (0600, in a 0700 folder). Another program holding
    the database waits at most `busy_timeout` seconds, then raises `sqlite3.OperationalError`:
    `history_open.open_history` turns that, and a file that is not a database, into a notice.
    """

    def __init__(self, path: Path, *, busy_timeout: float = BUSY_TIMEOUT, unsaved: bool = False) -> None:
        """`unsaved`: keep this run's chats in memory only (the file at `path` is not touched)."""
        self.path = path
        self.unsaved = unsaved
        self._checkpoints: BackgroundCheckpoints | None = None
        if unsaved:
            self._reader = f"file:unsaved-history-{uuid.uuid4().hex}?mode=memory&cache=shared"
            self._db = sqlite3.connect(self._reader, uri=True, isolation_level=None)
        else:
            self._reader = prepare_history_file(path)
            self._db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
            self._checkpoints = BackgroundCheckpoints(path)
        try:
            self._prepare()
        except BaseException:
            self._db.close()
            raise

    def _prepare(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL is durable against a killed process (not against power loss) and much faster.
        self._db.execute("PRAGMA synchronous=NORMAL")
        if self._checkpoints is not None:
            self._checkpoints.take_over(self._db)  # no commit on the event loop copies the log and syncs
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(conversations)")}
        if "taint" not in columns:  # databases from before taint was kept
            self._db.execute("ALTER TABLE conversations ADD COLUMN taint TEXT")
        # Earlier versions stored every "New chat" at once; a conversation without a message is not history.
        self._db.execute("DELETE FROM conversations WHERE id NOT IN (SELECT conversation_id FROM messages)")
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'message_text'").fetchone() is None:
            self._index_all()

    def _index_all(self) -> None:
        """Index the text of every stored message (a database from before the index)."""
        with self._transaction() as db:
            db.execute(INDEX)
            for conversation_id, body in db.execute("SELECT conversation_id, body FROM messages").fetchall():
                self._index(db, conversation_id, json.loads(body))

    @staticmethod
    def _index(db: sqlite3.Connection, conversation_id: str, message: Message) -> None:
        if text := message_text(message).strip():
            db.execute("INSERT INTO message_text (conversation_id, text) VALUES (?, ?)", (conversation_id, text))

    def close(self) -> None:
        if self._checkpoints is not None:
            self._checkpoints.close()
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
        if self._checkpoints is not None:
            self._checkpoints.committed()

    def create(self, title: str = DEFAULT_TITLE, conversation_id: str | None = None) -> ConversationInfo:
        now = time.time()
        info = ConversationInfo(conversation_id or uuid.uuid4().hex, title, now, now, 0)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO conversations (id, title, created, updated) VALUES (?, ?, ?, ?)",
                (info.id, title, now, now),
            )
        return info

    def list(self) -> builtins.list[ConversationInfo]:
        """Every conversation, the most recently updated first."""
        rows = self._db.execute(_LIST + " ORDER BY c.updated DESC").fetchall()
        return [ConversationInfo(*row) for row in rows]

    def search(self, query: str) -> builtins.list[SearchHit]:
        """Conversations whose title or messages (the user's and the model's) contain `query`, any case,
        the most recently updated first; each with the newest matching bit of text (`history_search`).

        It reads through a connection of its own, so it may run in a worker thread."""
        found = find_in_history(self._reader, query, _LIST)
        return [SearchHit(ConversationInfo(*row), snippet) for row, snippet in found]

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
            self._index(db, conversation_id, message)

    def replace_from(self, conversation_id: str, position: int, record: dict[str, Any]) -> None:
        """Take messages from `position` on (and the events after them) out of what the model reads,
        and keep them as `record` (a `Replaced`) at `position`, in one commit. Their text stays findable."""
        with self._transaction() as db:
            db.execute("DELETE FROM messages WHERE conversation_id = ? AND position >= ?", (conversation_id, position))
            db.execute("DELETE FROM events WHERE conversation_id = ? AND position > ?", (conversation_id, position))
            (seq,) = db.execute(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
            body = json.dumps(record, ensure_ascii=False)
            db.execute("INSERT INTO events VALUES (?, ?, ?, ?)", (conversation_id, seq, position, body))
            db.execute("UPDATE conversations SET updated = ? WHERE id = ?", (time.time(), conversation_id))

    def events(self, conversation_id: str) -> builtins.list[tuple[int, dict[str, Any]]]:
        """What the user saw beside the messages: (message position, event) in the order it happened."""
        rows = self._db.execute(
            "SELECT position, body FROM events WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
        ).fetchall()
        return [(position, json.loads(body)) for position, body in rows]

    def add_event(self, conversation_id: str, position: int, event: dict[str, Any]) -> None:
        """Keep one event, shown after the first `position` messages when the conversation is reopened."""
        body = json.dumps(event, ensure_ascii=False)
        with self._transaction() as db:
            (seq,) = db.execute(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
            db.execute("INSERT INTO events VALUES (?, ?, ?, ?)", (conversation_id, seq, position, body))

    def taint(self, conversation_id: str) -> builtins.list[str]:
        """Why the conversation holds untrusted content (empty when it does not)."""
        row = self._db.execute("SELECT taint FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        if row is None:
            raise ConversationNotFoundError(f"no conversation {conversation_id!r}")
        try:
            reasons = json.loads(row[0]) if row[0] else []
        except ValueError:
            return ["its stored taint could not be read"]  # unreadable: stay careful
        return [str(r) for r in reasons] if isinstance(reasons, list) else []

    def set_taint(self, conversation_id: str, reasons: builtins.list[str]) -> None:
        with self._transaction() as db:
            body = json.dumps(reasons, ensure_ascii=False)
            cursor = db.execute("UPDATE conversations SET taint = ? WHERE id = ?", (body, conversation_id))
            if cursor.rowcount == 0:
                raise ConversationNotFoundError(f"no conversation {conversation_id!r}")

    def insert(self, conversation_id: str, inserts: builtins.list[tuple[int, Message]]) -> None:
        """Insert messages at positions of the current list (as `missing_results` gives them), in one commit.

        Events kept after a later message move with it; those at the insert position stay before
        the new message (they are the calls it answers).
        """
        now = time.time()
        with self._transaction() as db:
            for position, message in sorted(inserts, key=lambda item: item[0], reverse=True):
                # Two steps, so no row ever takes a position another row still holds.
                db.execute(
                    "UPDATE messages SET position = -position - 2 WHERE conversation_id = ? AND position >= ?",
                    (conversation_id, position),
                )
                db.execute(
                    "UPDATE messages SET position = -position - 1 WHERE conversation_id = ? AND position < 0",
                    (conversation_id,),
                )
                db.execute(
                    "UPDATE events SET position = position + 1 WHERE conversation_id = ? AND position > ?",
                    (conversation_id, position),
                )
                body = json.dumps(message, ensure_ascii=False)
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
            db.execute("DELETE FROM events WHERE conversation_id = ?", (conversation_id,))
            db.execute("DELETE FROM message_text WHERE conversation_id = ?", (conversation_id,))
            db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))


@dataclass
class Conversation:
    """The history a turn runs on; with a store, each appended message (and event, taint) is committed at once.

    A new conversation reaches the store with its first message, so a chat the user never wrote
    in leaves nothing behind in the history.
    """

    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    messages: list[dict[str, Any]] = field(default_factory=list)
    store: ConversationStore | None = None
    title: str = DEFAULT_TITLE
    """The title it is stored with (until then it can still change)."""
    stored: bool = False
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """What the user saw beside the messages, as (message position, event dict)."""
    taint: list[str] = field(default_factory=list)
    """Why untrusted content is in this conversation; empty while there is none."""

    @property
    def tainted(self) -> str | None:
        """The first reason untrusted content is in the conversation, or None."""
        return self.taint[0] if self.taint else None

    def add_taint(self, reason: str) -> bool:
        """Remember another reason (at most `MAX_TAINT_REASONS`); True when it is new."""
        if reason in self.taint or len(self.taint) >= MAX_TAINT_REASONS:
            return False
        self.taint.append(reason)
        if (store := self._stored()) is not None:
            store.set_taint(self.id, self.taint)
        return True

    def record(self, event: dict[str, Any]) -> None:
        """Keep an event the user saw, at the current message position."""
        entry = (len(self.messages), event)
        if (store := self._stored()) is not None:
            store.add_event(self.id, *entry)
        self.events.append(entry)

    @classmethod
    def start(cls, store: ConversationStore | None = None, title: str = DEFAULT_TITLE) -> Conversation:
        """A new conversation, to be stored in `store` (if given) once it has a message."""
        return cls(store=store, title=title)

    @classmethod
    def resume(cls, store: ConversationStore, conversation_id: str) -> Conversation:
        """The stored conversation, with tool calls a crash left unanswered given a result (and stored)."""
        messages = store.messages(conversation_id)
        if inserts := missing_results(messages):
            store.insert(conversation_id, inserts)
            messages = store.messages(conversation_id)
        return cls(
            id=conversation_id,
            messages=messages,
            store=store,
            events=store.events(conversation_id),
            taint=store.taint(conversation_id),
            title=store.info(conversation_id).title,
            stored=True,
        )

    def retitle(self, title: str) -> None:
        self.title = title
        if self.store is not None and self.stored:
            self.store.rename(self.id, title)

    def _stored(self) -> ConversationStore | None:
        """The store, with this conversation in it from now on (None without a store)."""
        if self.store is not None and not self.stored:
            self.store.create(self.title, self.id)
            self.stored = True
        return self.store

    def append(self, message: dict[str, Any]) -> None:
        if (store := self._stored()) is not None:
            store.append(self.id, message)
        self.messages.append(message)

    def last_user_position(self) -> int | None:
        """Where the last user message is (the one Retry, Regenerate and Edit send again)."""
        roles = [message.get("role") for message in self.messages]
        return len(roles) - 1 - roles[::-1].index("user") if "user" in roles else None

    @property
    def answered(self) -> bool:
        """Whether the last turn ended with the model's answer (not an error, a stop, a call left open)."""
        last = self.messages[-1] if self.messages else {}
        return last.get("role") == "assistant" and not last.get("tool_calls")

    def replace_from(self, position: int, reason: str) -> Replaced:
        """Messages from `position` on leave what the model reads, kept in the history as replaced.

        Events at `position` came before that message and stay; later ones go with the messages.
        """
        kept = [(index - position, event) for index, event in self.events if index > position]
        replaced = Replaced(reason, tuple(self.messages[position:]), tuple(kept))
        record = record_to_dict(replaced)
        if (store := self._stored()) is not None:
            store.replace_from(self.id, position, record)
        del self.messages[position:]
        self.events[:] = [(index, event) for index, event in self.events if index <= position]
        self.events.append((position, record))
        return replaced

"""The history's log is moved into the database by a thread of its own, never by a commit on the event loop."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from desktop_app.core.chat.conversations import ConversationStore
from desktop_app.core.chat.history_checkpoint import EVERY

BODY = "a long answer " * 3_500  # about 50 KB: a dozen pages each, past SQLite's own 1,000-page line well before EVERY


def test_commits_never_checkpoint_a_thread_of_its_own_does(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    store = ConversationStore(path)
    chat = store.create("long").id
    start = path.stat().st_size
    for _ in range(EVERY - 2):  # with `create`, one commit short of a checkpoint
        store.append(chat, {"role": "assistant", "content": BODY})
    assert Path(f"{path}-wal").stat().st_size > 1_000 * 4096, "the log is past SQLite's own checkpoint line"
    assert path.stat().st_size == start, "no commit copied the log into the database"

    store.append(chat, {"role": "assistant", "content": BODY})  # the EVERY-th commit
    deadline = time.monotonic() + 10
    while path.stat().st_size == start and time.monotonic() < deadline:  # no more commits: only the thread
        time.sleep(0.01)
    assert path.stat().st_size > start, "a checkpoint in the background"

    store.close()
    with sqlite3.connect(path) as db:  # everything is in the database, whole
        assert db.execute("SELECT COUNT(*) FROM messages").fetchone() == (EVERY - 1,)
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_chat_kept_in_memory_starts_no_checkpoint(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "history.db", unsaved=True)
    chat = store.create("unsaved").id
    for _ in range(EVERY + 1):
        store.append(chat, {"role": "user", "content": "hi"})
    assert not any(t.name == "history-checkpoint" for t in threading.enumerate())
    assert not (tmp_path / "history.db").exists()
    store.close()

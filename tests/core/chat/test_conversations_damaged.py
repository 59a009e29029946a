"""The history never stops the app: a file that is not a database, a folder in its place, a database
another program holds; and it is private whatever the umask."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from desktop_app.core.chat.conversations import Conversation, ConversationStore, SearchHit
from desktop_app.core.chat.history_open import open_history
from tests.file_modes import mode

GARBAGE = b"\x00\x01 not a database, a crash mid-write " * 300


def kept_chat(path: Path) -> str:
    store = ConversationStore(path)
    conversation = Conversation.start(store, "kept")
    conversation.append({"role": "user", "content": "remember the lighthouse"})
    store.close()
    return conversation.id


def assert_works(store: ConversationStore) -> None:
    conversation = Conversation.start(store, "after")
    conversation.append({"role": "user", "content": "a new lighthouse question"})
    assert [info.title for info in store.list()] == ["after"]
    found: list[list[SearchHit]] = []
    finder = threading.Thread(target=lambda: found.append(store.search("lighthouse")))  # as Find in history does
    finder.start()
    finder.join(timeout=10)
    assert [[hit.info.title for hit in hits] for hits in found] == [["after"]]


def test_a_file_that_is_not_a_database_is_set_aside_with_its_companions_and_a_new_history_starts(
    tmp_path: Path,
) -> None:
    path = tmp_path / "conversations.sqlite3"
    path.write_bytes(GARBAGE)
    Path(f"{path}-wal").write_bytes(b"wal bytes")
    Path(f"{path}-shm").write_bytes(b"shm bytes")

    opened = open_history(path, busy_timeout=0.2)

    [aside] = [p for p in tmp_path.glob("conversations.sqlite3.corrupt-*") if not p.name.endswith(("-wal", "-shm"))]
    assert aside.read_bytes() == GARBAGE, "the old file is kept as it was"
    assert Path(f"{aside}-wal").read_bytes() == b"wal bytes" and Path(f"{aside}-shm").read_bytes() == b"shm bytes"
    assert opened.notice is not None and str(aside) in opened.notice
    assert not opened.store.unsaved and opened.store.path == path
    assert_works(opened.store)
    opened.store.close()
    assert [info.title for info in ConversationStore(path).list()] == ["after"], "the new history is saved"


def test_a_folder_in_place_of_the_history_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    path.mkdir()
    (path / "inside").write_text("someone's file")

    opened = open_history(path, busy_timeout=0.2)

    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("conversations.sqlite3.corrupt-")]
    assert (aside / "inside").read_text() == "someone's file", "nothing is deleted"
    assert opened.notice is not None and str(aside) in opened.notice
    assert_works(opened.store)


def test_a_database_another_program_holds_is_waited_for_briefly_then_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    kept = kept_chat(path)
    holder = sqlite3.connect(path, isolation_level=None)  # a backup tool or an sqlite shell
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        opened = open_history(path, busy_timeout=0.3)
        waited = time.monotonic() - started
        assert 0.25 <= waited < 5, "it waits for the lock, briefly"
        assert opened.notice is not None and "in use by another program" in opened.notice and str(path) in opened.notice
        assert opened.store.unsaved
        assert_works(opened.store)
        opened.store.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert [p.name for p in tmp_path.iterdir() if "corrupt" in p.name] == [], "a held file is not damaged"
    store = ConversationStore(path)
    assert [info.id for info in store.list()] == [kept], "the saved history is untouched"


def test_a_write_lock_in_wal_mode_is_waited_for_too(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    kept_chat(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        opened = open_history(path, busy_timeout=0.2)
        assert opened.store.unsaved and opened.notice is not None
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.usefixtures("wide_umask")
def test_the_history_and_its_wal_and_shm_are_private_whatever_the_umask(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "histories" / "abc"
    path = folder / "conversations.sqlite3"
    kept_chat(path)
    store = ConversationStore(path)
    Conversation.start(store).append({"role": "user", "content": "hi"})
    assert Path(f"{path}-wal").exists() and Path(f"{path}-shm").exists()
    for made in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        assert mode(made) == 0o600, made.name
    for made in (folder, folder.parent, folder.parent.parent):
        assert mode(made) == 0o700, made.name
    store.close()


@pytest.mark.usefixtures("wide_umask")
def test_an_older_world_readable_history_and_folder_are_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    path = folder / "conversations.sqlite3"
    kept_chat(path)
    for loose in (folder, path, *(Path(f"{path}{suffix}") for suffix in ("-wal", "-shm"))):
        if loose.exists():
            loose.chmod(0o755 if loose.is_dir() else 0o644)
    ConversationStore(path).close()
    assert mode(folder) == 0o700 and mode(path) == 0o600

"""The real window over a history file that is not a database, and over one another program holds:
it comes up, says so, and chats go on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_app.core.chat.conversations import Conversation, ConversationStore
from desktop_app.core.paths import history_path
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import eventually
from tests.window_kit import run_window_scenario

GARBAGE = b"half a restore, not a database " * 200


def notices(window: MainWindow) -> list[str]:
    return [box.text() for box in window.findChildren(QMessageBox) if box.isVisible()]


async def chats_go_on(window: MainWindow) -> None:
    """A chat is kept by the window's store and listed by its history panel."""
    conversation = Conversation.start(window.chat.store, "after the damage")
    conversation.append({"role": "user", "content": "still here?"})
    window.history.refresh()
    assert window.chat.store.list()[0].title == "after the damage"


def test_the_window_comes_up_over_a_history_that_is_not_a_database(qapp: QApplication, tmp_path: Path) -> None:
    history = history_path(tmp_path / "servers.json")
    history.parent.mkdir(parents=True, exist_ok=True)
    history.write_bytes(GARBAGE)
    seen: list[str] = []

    async def steps(window: MainWindow) -> None:
        await eventually(lambda: any("could not be read" in text for text in notices(window)), what="the notice")
        seen.extend(notices(window))
        await chats_go_on(window)

    run_window_scenario(qapp, tmp_path, steps, servers={})

    [aside] = [p for p in history.parent.iterdir() if p.name.startswith(history.name + ".corrupt-")]
    assert aside.read_bytes() == GARBAGE
    assert any(str(aside) in text for text in seen), seen
    assert [info.title for info in ConversationStore(history).list()] == ["after the damage"]


def test_the_window_comes_up_over_a_history_another_program_holds(qapp: QApplication, tmp_path: Path) -> None:
    history = history_path(tmp_path / "servers.json")
    store = ConversationStore(history)
    Conversation.start(store, "saved before").append({"role": "user", "content": "hello"})
    store.close()
    holder = sqlite3.connect(history, isolation_level=None)  # an sqlite shell's BEGIN EXCLUSIVE
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")

    async def steps(window: MainWindow) -> None:
        await eventually(lambda: any("in use by another program" in t for t in notices(window)), what="the notice")
        await chats_go_on(window)

    try:
        run_window_scenario(qapp, tmp_path, steps, servers={})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert [info.title for info in ConversationStore(history).list()] == ["saved before"], "left alone"

"""The history list: stored conversations, resume, inline rename, confirmed delete."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.conversations import ConversationStore
from desktop_app.ui.history_panel import HistoryPanel


def test_lists_resumes_renames_and_deletes(qtbot: QtBot, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    older = store.create("First question")
    store.append(older.id, {"role": "user", "content": "hi"})
    newer = store.create("Second question")
    store.append(newer.id, {"role": "user", "content": "hello"})
    empty = store.create()
    panel = HistoryPanel(store)
    qtbot.addWidget(panel)
    panel.set_current(empty.id)
    titles = [panel.list.item(i).text() for i in range(panel.list.count())]
    assert titles == ["New chat", "Second question", "First question"]  # the empty draft shows only while open

    resumed: list[str] = []
    panel.resume_requested.connect(resumed.append)
    panel.list.itemClicked.emit(panel.list.item(2))
    assert resumed == [older.id]

    renamed: list[tuple[str, str]] = []
    panel.rename_requested.connect(lambda cid, title: renamed.append((cid, title)))
    panel.list.item(1).setText("Renamed")
    assert renamed == [(newer.id, "Renamed")]

    deleted: list[str] = []
    panel.delete_requested.connect(deleted.append)
    panel._confirm_delete(panel.list.item(2))
    [box] = [w for w in panel.findChildren(QMessageBox)]
    assert "First question" in box.text()
    box.accept()
    assert deleted == [older.id]

    panel.set_current(newer.id)
    assert [panel.list.item(i).text() for i in range(panel.list.count())] == ["Second question", "First question"]

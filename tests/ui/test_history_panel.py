"""The history list: stored conversations under day headings, resume, inline rename, confirmed delete."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.conversations import ConversationStore
from desktop_app.ui.history_panel import HistoryPanel, day_label


def _texts(panel: HistoryPanel) -> list[str]:
    return [panel.list.item(i).text() for i in range(panel.list.count())]


def test_day_labels() -> None:
    today = date(2026, 11, 30)  # a Monday

    def at(day: date) -> float:
        return datetime(day.year, day.month, day.day, 12).timestamp()

    assert day_label(at(today), today) == "Today"
    assert day_label(at(today - timedelta(days=1)), today) == "Yesterday"
    assert day_label(at(today - timedelta(days=3)), today) == "Friday"
    assert day_label(at(date(2026, 10, 2)), today) == "2 October"
    assert day_label(at(date(2025, 12, 24)), today) == "24 December 2025"


def test_lists_resumes_renames_and_deletes(qtbot: QtBot, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    older = store.create("First question")
    store.append(older.id, {"role": "user", "content": "hi"})
    yesterday = time.time() - 86_400
    store._db.execute("UPDATE conversations SET updated = ? WHERE id = ?", (yesterday, older.id))
    newer = store.create("Second question")
    store.append(newer.id, {"role": "user", "content": "hello"})
    store.create()  # an empty one (as earlier versions stored): not history
    panel = HistoryPanel(store)
    qtbot.addWidget(panel)
    assert _texts(panel) == ["Today", "Second question", day_label(yesterday), "First question"]
    heading = panel.list.item(0)
    assert not heading.flags() & (Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable), "a heading is a heading"

    resumed: list[str] = []
    panel.resume_requested.connect(resumed.append)
    panel.list.itemClicked.emit(heading)
    panel.list.itemClicked.emit(panel.list.item(3))
    assert resumed == [older.id]

    renamed: list[tuple[str, str]] = []
    panel.rename_requested.connect(lambda cid, title: renamed.append((cid, title)))
    panel.list.item(1).setText("Renamed")
    assert renamed == [(newer.id, "Renamed")]

    deleted: list[str] = []
    panel.delete_requested.connect(deleted.append)
    panel._confirm_delete(panel.list.item(3))
    [box] = [w for w in panel.findChildren(QMessageBox)]
    assert "First question" in box.text()
    box.accept()
    assert deleted == [older.id]

"""The history list: stored conversations under day headings, resume, inline rename, confirmed delete."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QLineEdit, QMenu, QMessageBox
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


# The offscreen platform cannot raise or grab for the context menu; that is not ours to fix.
@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")
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
    panel.resize(300, 400)
    panel.show()
    rows = panel.list
    assert _texts(panel) == ["Today", "Second question", day_label(yesterday), "First question"]
    heading = rows.item(0)
    assert not heading.flags() & (Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable), "a heading is a heading"

    def at(row: int) -> QPoint:
        return rows.visualItemRect(rows.item(row)).center()

    resumed: list[str] = []
    panel.resume_requested.connect(resumed.append)
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=at(0))
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=at(3))
    assert resumed == [older.id]

    renamed: list[tuple[str, str]] = []
    panel.rename_requested.connect(lambda cid, title: renamed.append((cid, title)))
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=at(1))
    qtbot.keyClick(rows, Qt.Key.Key_F2)
    editor = rows.viewport().findChild(QLineEdit)
    assert editor is not None and editor.text() == "Second question"
    editor.selectAll()
    qtbot.keyClicks(editor, "Renamed")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(renamed), timeout=60_000)  # the delegate commits on its next turn
    assert renamed == [(newer.id, "Renamed")]

    deleted: list[str] = []
    panel.delete_requested.connect(deleted.append)
    # A right-click, as the platform reports it to the list (offscreen has no context-menu gesture).
    QApplication.sendEvent(
        rows.viewport(), QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at(3), rows.viewport().mapToGlobal(at(3)))
    )
    [menu] = [m for m in panel.findChildren(QMenu) if m.isVisible()]
    delete = next(action for action in menu.actions() if action.text() == "Delete…")
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(delete).center())
    [box] = [w for w in panel.findChildren(QMessageBox) if w.isVisible()]
    assert "First question" in box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert deleted == [older.id]

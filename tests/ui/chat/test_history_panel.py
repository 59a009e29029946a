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
from desktop_app.ui.chat.history_panel import HistoryPanel, day_label


def _texts(panel: HistoryPanel) -> list[str]:
    return [panel.list.item(i).text() for i in range(panel.list.count()) if not panel.list.item(i).isHidden()]


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


def _row_of(panel: HistoryPanel, conversation_id: str) -> int:
    rows = panel.list
    return next(i for i in range(rows.count()) if rows.item(i).data(Qt.ItemDataRole.UserRole) == conversation_id)


def _right_click(panel: HistoryPanel, row: int) -> QMenu:
    rows = panel.list
    at = rows.visualItemRect(rows.item(row)).center()
    QApplication.sendEvent(
        rows.viewport(), QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, rows.viewport().mapToGlobal(at))
    )
    [menu] = [m for m in panel.findChildren(QMenu) if m.isVisible()]
    return menu


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")
def test_a_right_click_highlights_the_row_it_acts_on_then_the_open_chat_again(qtbot: QtBot, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    chats = []
    for title in ("Open one", "Another", "A third"):
        chats.append(store.create(title))
        store.append(chats[-1].id, {"role": "user", "content": title})
    panel = HistoryPanel(store)
    qtbot.addWidget(panel)
    panel.resize(300, 400)
    panel.show()
    panel.set_current(chats[0].id)
    current = panel.list.currentItem
    assert current().data(Qt.ItemDataRole.UserRole) == chats[0].id

    menu = _right_click(panel, _row_of(panel, chats[1].id))
    assert current().data(Qt.ItemDataRole.UserRole) == chats[1].id, "the menu's row is the highlighted one"
    qtbot.keyClick(menu, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: current().data(Qt.ItemDataRole.UserRole) == chats[0].id, timeout=60_000)

    menu = _right_click(panel, _row_of(panel, chats[2].id))
    delete = next(action for action in menu.actions() if action.text() == "Delete…")
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(delete).center())
    [box] = [w for w in panel.findChildren(QMessageBox) if w.isVisible()]
    qtbot.wait(1)  # a turn of the event loop: the menu's close has been handled
    assert current().data(Qt.ItemDataRole.UserRole) == chats[2].id, "still the row the question is about"
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert current().data(Qt.ItemDataRole.UserRole) == chats[0].id

    deleted: list[str] = []
    panel.delete_requested.connect(deleted.append)
    qtbot.keyClick(panel.list, Qt.Key.Key_Delete)  # the selected (open) chat
    [box] = [w for w in panel.findChildren(QMessageBox) if w.isVisible()]
    assert "Open one" in box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert deleted == [chats[0].id]


def test_find_in_history_narrows_the_list_to_matching_chats(qtbot: QtBot, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    for title, text in (
        ("Weather", "Will it rain in Lyon tomorrow?"),
        ("Dinner", "A recipe with butter"),
        ("Lyon trip", "Trains"),
    ):
        chat = store.create(title)
        store.append(chat.id, {"role": "user", "content": text})
    weather = next(info for info in store.list() if info.title == "Weather")
    panel = HistoryPanel(store)
    qtbot.addWidget(panel)
    panel.resize(300, 400)
    panel.show()
    assert len(_texts(panel)) == 4
    [weather_row] = [panel.list.item(i) for i in range(4) if panel.list.item(i).text() == "Weather"]
    qtbot.keyClicks(panel.find_field, "lyon")
    qtbot.waitUntil(lambda: "Dinner" not in _texts(panel), timeout=60_000)
    assert _texts(panel) == ["Today", "Lyon trip", "Weather\n    Will it rain in Lyon tomorrow?"]
    assert weather_row.text().startswith("Weather\n")  # narrowed in place: the same rows, not a new list
    resumed: list[str] = []
    panel.resume_requested.connect(resumed.append)
    qtbot.keyClick(panel.find_field, Qt.Key.Key_Down)  # to the found chats
    qtbot.keyClick(panel.list, Qt.Key.Key_Down)
    qtbot.keyClick(panel.list, Qt.Key.Key_Return)
    assert resumed == [weather.id]

    panel.find_field.setFocus()
    panel.find_field.selectAll()
    qtbot.keyClicks(panel.find_field, "zebra")
    qtbot.waitUntil(lambda: _texts(panel) == ["No chat contains “zebra”."], timeout=60_000)
    qtbot.keyClick(panel.find_field, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: len(_texts(panel)) == 4, timeout=60_000)
    assert panel.find_field.text() == ""

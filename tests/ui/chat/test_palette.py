"""The command palette: fuzzy ranking and a keyboard-only run."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop_app.ui.chat.palette import CommandPalette, PaletteEntry, rank


def _entries(ran: list[str]) -> list[PaletteEntry]:
    def entry(kind: str, title: str, subtitle: str = "") -> PaletteEntry:
        return PaletteEntry(kind, title, subtitle, lambda: ran.append(title))

    return [
        entry("command", "New chat"),
        entry("command", "Add server…"),
        entry("command", "Settings"),
        entry("prompt", "summarize_resource", "demo · Summarize a resource"),
        entry("prompt", "plan_task", "demo · Plan a task"),
        entry("prompt", "greet", "fixture · Greet someone"),
    ]


def test_rank_prefers_prefixes_and_drops_non_matches() -> None:
    entries = _entries([])
    assert [e.title for e in rank("", entries)] == [e.title for e in entries]
    assert rank("gr", entries)[0].title == "greet"
    assert rank("summ res", entries)[0].title == "summarize_resource"
    assert rank("task", entries)[0].title == "plan_task"
    assert rank("zzzz", entries) == []


def test_keyboard_only(qtbot: QtBot) -> None:
    host = QWidget()
    host.resize(800, 600)
    qtbot.addWidget(host)
    palette = CommandPalette(host)
    ran: list[str] = []
    palette.open_with(_entries(ran))
    assert palette.isVisibleTo(host)
    qtbot.keyClicks(palette.query, "pla")
    assert palette.visible_entries()[0].title == "plan_task"
    qtbot.keyClick(palette.query, Qt.Key.Key_Return)
    assert ran == ["plan_task"] and palette.isHidden()

    palette.open_with(_entries(ran))
    qtbot.keyClick(palette.query, Qt.Key.Key_Down)
    qtbot.keyClick(palette.query, Qt.Key.Key_Enter)
    assert ran[-1] == "Add server…"
    palette.open_with(_entries(ran))
    qtbot.keyClick(palette.query, Qt.Key.Key_Escape)
    assert palette.isHidden() and len(ran) == 2

"""What a chat keeps of an app view's own tool result: cut to its share, read back from storage, and shown
as plain text under the app's call (the words are the server's)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import APP_RESULT_KEPT, AppToolResult, event_from_dict, record_to_dict
from desktop_app.qt_kit.theme import tokens
from desktop_app.ui.conversation.record_cards import app_result_line

HOSTILE = '<img src="/dev/zero"><b>bold</b>'


def test_an_apps_tool_result_is_kept_cut_read_back_and_shown_as_plain_text(qtbot: QtBot) -> None:
    long = AppToolResult.kept("apps", "ui://probe", "bump", "x" * (APP_RESULT_KEPT * 3), False, "call_1")
    assert len(long.text) == APP_RESULT_KEPT and long.text.endswith("…")
    assert event_from_dict(record_to_dict(long)) == long

    failed = AppToolResult.kept("apps", "ui://probe", "bump", HOSTILE, True, None)
    assert event_from_dict(record_to_dict(failed)) == failed
    line = app_result_line(failed)
    qtbot.addWidget(line)
    line.show()
    assert line.textFormat() == Qt.TextFormat.PlainText and line.text() == f"bump failed: {HOSTILE}"
    assert line.sizeHint().height() < 100, "no picture loaded"
    assert tokens().danger in line.styleSheet(), "a failure in the theme's danger colour"

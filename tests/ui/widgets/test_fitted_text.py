"""A fitted text box shows a short text whole, with no scroll bar, read-only or editable (then it is a
field, framed and padded by the application's sheet), and scrolls past its line limit."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.qt_kit.theme import style_fields
from desktop_app.ui.widgets.fitted_text import FittedText

ARGUMENTS = '{\n  "title": "Catalog + pull",\n  "text": "Read on demand, whole."\n}'


@pytest.mark.parametrize("read_only", [True, False])
def test_a_short_text_is_shown_whole_without_a_scroll_bar(qapp: QApplication, qtbot: QtBot, read_only: bool) -> None:
    sheet = qapp.styleSheet()
    style_fields(qapp)
    try:
        page = QWidget()
        qtbot.addWidget(page)
        box = FittedText(ARGUMENTS, 24, read_only=read_only)
        QVBoxLayout(page).addWidget(box)
        page.resize(600, 400)
        page.show()
        qtbot.waitExposed(page)
        bar = box.verticalScrollBar()
        qtbot.waitUntil(lambda: bar.maximum() == 0 and not bar.isVisible(), timeout=3000)
        box.setPlainText("\n".join(f"line {n}" for n in range(40)))
        qtbot.waitUntil(lambda: box.verticalScrollBar().maximum() > 0)  # past 24 lines it scrolls
    finally:
        qapp.setStyleSheet(sheet)

"""Rich text whose colours come from the tokens is written again when the theme changes: a colour written
into a label's text is not the palette's, and would stay the old theme's."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_app.qt_kit.theme import restyle, themed_text, tokens
from desktop_app.qt_kit.tokens import DARK, LIGHT


def test_a_labels_coloured_text_follows_a_change_of_theme(qapp: QApplication, qtbot: QtBot) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    themed_text(label, lambda p: f"<span style='color:{p.danger}'>not encrypted</span>")
    before = qapp.palette()
    first = tokens()
    assert first.danger in label.text()
    other = DARK if first is LIGHT else LIGHT
    flipped = QPalette(before)
    flipped.setColor(QPalette.ColorRole.Window, QColor(other.window))
    try:
        qapp.setPalette(flipped)
        assert tokens() is other
        assert restyle() >= 1
        assert other.danger in label.text() and first.danger not in label.text()
    finally:
        qapp.setPalette(before)
        restyle()
    assert first.danger in label.text()

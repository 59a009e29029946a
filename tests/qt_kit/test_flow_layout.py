"""The flow layout wraps its items like words and remembers its measures until an item changes."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.qt_kit.flow_layout import FlowLayout


def test_items_wrap_to_the_width_and_a_changed_item_is_measured_again(qtbot: QtBot) -> None:
    row = QWidget()
    qtbot.addWidget(row)
    flow = FlowLayout(row, spacing=4)
    labels = [QLabel(f"claim {n}") for n in range(6)]
    for label in labels:
        flow.addWidget(label)
    one_line = flow.heightForWidth(2000)
    assert flow.heightForWidth(120) > one_line  # narrow: onto more lines
    widest = flow.minimumSize().width()

    labels[0].setText("a claim a great deal longer than the others")
    assert flow.minimumSize().width() > widest  # not the remembered one
    assert flow.heightForWidth(120) > one_line

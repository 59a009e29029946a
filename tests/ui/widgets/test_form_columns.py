"""The forms of a page share one label column: their fields start at one x."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLineEdit, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.ui.widgets.form_columns import align_form_labels


def test_fields_of_two_groups_start_at_one_x(qtbot: QtBot) -> None:
    page = QWidget()
    qtbot.addWidget(page)
    column = QVBoxLayout(page)
    fields = []
    for title, label in (("Model", "API key"), ("Conversation", "Max tool rounds per answer")):
        box = QGroupBox(title)
        form = QFormLayout(box)
        field = QLineEdit()
        form.addRow(label, field)
        fields.append(field)
        column.addWidget(box)
    assert align_form_labels(page) > 0
    page.resize(600, 200)
    page.show()
    qtbot.waitExposed(page)
    short, long = (field.mapTo(page, QPoint(0, 0)).x() for field in fields)
    assert short == long

"""An empty chat's offer sits towards the middle of a tall column, and at the top of a full one."""

from __future__ import annotations

from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.ui.conversation.first_steps import EmptyChat, FirstSteps


def test_the_offer_is_lifted_by_a_third_of_the_free_height_and_not_at_all_when_there_is_none(qtbot: QtBot) -> None:
    area = QScrollArea()
    qtbot.addWidget(area)
    area.setWidgetResizable(True)
    column = QWidget()
    rows = QVBoxLayout(column)
    empty = EmptyChat(FirstSteps())
    rows.addWidget(empty)
    rows.addStretch(1)
    area.setWidget(column)
    area.resize(900, 1000)
    area.show()
    qtbot.waitExposed(area)

    def settled() -> bool:
        free = area.viewport().height() - (column.sizeHint().height() - empty.lift)
        return abs(empty.lift - max(free // 3, 0)) <= 1

    qtbot.waitUntil(lambda: empty.lift > 0 and settled())
    lifted = empty.lift
    qtbot.wait(100)
    assert empty.lift == lifted  # it stays put: no layout pass moves it again
    filler = QWidget()
    filler.setFixedHeight(2000)  # more below it than the window shows: the offer starts at the top
    rows.addWidget(filler)
    qtbot.waitUntil(lambda: empty.lift == 0)

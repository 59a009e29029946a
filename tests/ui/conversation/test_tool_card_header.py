"""A tool card's header: a short title stays on one line beside the tool's name and server."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.ui.conversation.tool_card import ToolCard


def test_a_title_that_fits_is_not_wrapped_beside_the_tools_name(qapp: QApplication, qtbot: QtBot) -> None:
    card = ToolCard("c1", "demo", "show_notes_board", {}, title="Show the notes board", description="Shows notes.")
    qtbot.addWidget(card)
    card.resize(740, 200)
    card.show()
    qtbot.waitExposed(card)
    line = card.title.fontMetrics().lineSpacing()
    assert card.title.heightForWidth(card.title.width()) < 2 * line, "one line"
    assert card.where.isVisible() and card.where.x() > card.title.x()


def test_a_long_title_still_wraps_in_a_narrow_card(qapp: QApplication, qtbot: QtBot) -> None:
    long = "Show every note of the board with its length, its date and what the model said of it"
    card = ToolCard("c2", "demo", "show_notes_board", {}, title=long)
    qtbot.addWidget(card)
    card.resize(420, 200)
    card.show()
    qtbot.waitExposed(card)
    assert card.title.width() < card.width(), "the card is not pushed wider than its column"
    assert card.title.heightForWidth(card.title.width()) >= 2 * card.title.fontMetrics().lineSpacing()

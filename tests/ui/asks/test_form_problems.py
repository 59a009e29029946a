"""A form never fails silently: problems show, follow the edits and go once fixed; Submit shows the first one.

Played with real keys and clicks against the asking server over stdio, the card in a scroll area
too short to show the whole form, as in the conversation.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QScrollArea, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.cards import register_cards
from desktop_app.ui.asks.form_card import FormCard
from tests.core.asks.hosting import asking_config, asking_host
from tests.hosting import eventually
from tests.window_kit import run_in_qt

NOTES = {f"note{i}": {"type": "string", "title": f"Note {i}"} for i in range(1, 13)}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        **NOTES,
        "minutes": {"type": "integer", "title": "Minutes", "minimum": 15, "maximum": 240},
    },
    "required": ["name", "minutes"],
}


def in_view(area: QScrollArea, widget: QWidget) -> bool:
    top_left = widget.mapTo(area.viewport(), QPoint(0, 0))
    return area.viewport().rect().contains(QRect(top_left, widget.size()))


def test_problems_show_follow_the_edits_and_submit_brings_the_first_into_view(qapp: QApplication, qtbot: QtBot) -> None:
    area = QScrollArea()
    area.setWidgetResizable(True)
    content = QWidget()
    column = QVBoxLayout(content)
    area.setWidget(content)
    area.resize(640, 360)
    asker = CardAsker(column.addWidget)
    register_cards(asker)

    async def scenario() -> None:
        async with asking_host(asker.ask, asking_config("legacy"), stdio=True) as (host, _asker):
            arguments = {"schema": json.dumps(SCHEMA)}
            call = asyncio.ensure_future(host.connection("asking").call_tool("ask_form", arguments))
            await eventually(lambda: len(asker.pending) == 1, what="the form card")
            card = asker.pending[0]
            assert isinstance(card, FormCard)
            area.show()
            area.activateWindow()
            await eventually(area.isActiveWindow, what="the window active (focus moves with Tab)")
            name, minutes = card.editors["name"].widget, card.editors["minutes"].widget
            assert isinstance(name, QLineEdit) and isinstance(minutes, QLineEdit)
            assert minutes.placeholderText() == "a whole number from 15 to 240"

            # 500 in a 15-240 field stays 500 and is called out once the cursor leaves it.
            area.ensureWidgetVisible(minutes)
            qtbot.mouseClick(minutes, Qt.MouseButton.LeftButton)
            assert minutes.hasFocus()
            qtbot.keyClicks(minutes, "500")
            assert not card.problems["minutes"].isVisibleTo(area)  # not while typing
            qtbot.keyClick(minutes, Qt.Key.Key_Tab)
            assert minutes.text() == "500" and card.values()["minutes"] == 500
            assert card.problems["minutes"].isVisibleTo(area)
            assert card.problems["minutes"].text() == "Minutes must be at most 240"

            # Submit at the bottom of the form: the missing name, far above, comes into view with the cursor.
            area.ensureWidgetVisible(card.submit)
            assert not in_view(area, name)
            qtbot.mouseClick(card.submit, Qt.MouseButton.LeftButton)
            assert card.open and not call.done()
            assert card.problems["name"].text() == "Name is required"
            assert card.summary.text() == "2 fields need fixing before this can be sent."
            await eventually(lambda: in_view(area, name), what="the name field scrolled into view")
            await eventually(name.hasFocus, what="the cursor in the name field")

            # A shown problem follows each key and goes once fixed.
            qtbot.keyClicks(name, "A")
            assert card.problems["name"].text() == "Name needs at least 2 characters"
            qtbot.keyClicks(name, "da")
            assert not card.problems["name"].isVisibleTo(area)
            assert card.summary.text() == "One field needs fixing before this can be sent."
            qtbot.mouseClick(minutes, Qt.MouseButton.LeftButton)
            qtbot.keyClick(minutes, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(minutes, "9")
            assert card.problems["minutes"].text() == "Minutes must be at least 15"  # on its way to 90
            qtbot.keyClicks(minutes, "0")
            assert not card.problems["minutes"].isVisibleTo(area) and not card.summary.isVisibleTo(area)

            qtbot.mouseClick(card.submit, Qt.MouseButton.LeftButton)
            result: Any = await call
            sent = json.loads(result.content[0].text)
            assert sent == {"action": "accept", "content": {"name": "Ada", "minutes": 90}}
        area.close()

    run_in_qt(qapp, scenario())

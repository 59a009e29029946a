"""A task that asks on every poll, answered in the window: a bounded number of form cards, then ONE card
saying what was stopped, not hundreds."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from desktop_app.core.asks.budget import MAX_PER_CALL
from desktop_app.core.tasks.model import TaskStatus
from desktop_app.ui.asks.card import AskCard
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.cards import register_cards
from desktop_app.ui.asks.form_card import FormCard
from desktop_app.ui.asks.stopped_card import StoppedCard
from tests.core.tasks.hosting import task_of, tasks_host
from tests.hosting import eventually
from tests.servers.tasks_server import build_tasks_server
from tests.window_kit import run_in_qt


def test_a_task_that_asks_without_end_yields_one_stopped_card(qapp: QApplication) -> None:
    window = QWidget()
    window.resize(640, 900)
    cards = CardAsker(QVBoxLayout(window).addWidget)
    register_cards(cards)
    opened: list[AskCard[Any]] = []

    def user(card: AskCard[Any]) -> None:
        """Declines each form as it appears, as someone clicking through them would."""
        opened.append(card)
        if isinstance(card, FormCard):
            QTimer.singleShot(0, card.decline.click)

    cards.sig_card_opened.connect(user)

    async def scenario() -> None:
        server, fixture = build_tasks_server()
        async with tasks_host(server, cards.ask) as (host, _asker, board):
            window.show()
            async with asyncio.timeout(60):  # unbounded, it would ask for ever
                result = await host.connection("tasks").call_tool("nag", {}, call_id="call_nag")
            assert result.is_error
            await task_of(board, "call_nag", TaskStatus.CANCELLED)
            assert [task.task_id for task in fixture.tasks.values()] == fixture.cancelled
            await eventually(lambda: any(isinstance(card, StoppedCard) for card in opened), what="the stopped card")
            forms = [card for card in opened if isinstance(card, FormCard)]
            [stopped] = [card for card in opened if isinstance(card, StoppedCard)]
            assert len(forms) == MAX_PER_CALL and len(opened) == MAX_PER_CALL + 1
            assert stopped.isVisibleTo(window) and stopped.open
            assert f"'tasks' asked {MAX_PER_CALL} questions during one tool call" in stopped.reason.text()
            assert cards.pending == [stopped]  # nothing else waits for the user
            stopped.ok.click()
            assert stopped.outcome.text().startswith("Stopped asking: 'tasks' asked")
            await eventually(lambda: cards.pending == [], what="the notice folded")

    run_in_qt(qapp, scenario())

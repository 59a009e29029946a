"""The window's `Asker`: builds the card registered for a question's type and awaits its answer.

The window decides where cards go (under the tool call that caused them, or on the server's
row) through the `place` callable; this class only keeps the family's rules: one factory per
question type, keyboard focus on arrival, a withdrawn card on cancellation, and the question's
fallback when the window withdraws it (its server left, a new chat began).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from desktop_app.core.asks.question import Question
from desktop_app.ui.asks.card import AskCard

log = logging.getLogger(__name__)

R = TypeVar("R")
CardFactory = Callable[[Any], AskCard[Any]]
"""Builds the card for one question (typed loosely: each factory takes its own question type)."""

NO_ANSWER = "No longer needed: the request it belonged to ended (it was stopped, or its server was)."


class CardAsker(QObject):
    """Implements `Asker` with non-modal cards; `pending` lists the cards still open."""

    sig_card_opened = Signal(object)
    """A card appeared (AskCard): the window raises a notification when it is not focused."""
    sig_card_closed = Signal(object)
    """A card was answered, withdrawn or cancelled (AskCard)."""

    def __init__(self, place: Callable[[AskCard[Any]], object], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._place = place
        self._factories: dict[type[Question[Any]], CardFactory] = {}
        self.pending: list[AskCard[Any]] = []

    def register(self, kind: type[Question[Any]], factory: CardFactory) -> None:
        """Render questions of `kind` (and its subclasses, unless they register their own) with `factory`."""
        self._factories[kind] = factory

    async def ask(self, question: Question[R]) -> R:
        factory = next((self._factories[k] for k in type(question).__mro__ if k in self._factories), None)
        if factory is None:
            log.warning("no card for %s: answering with its fallback", type(question).__name__)
            return question.fallback()
        card: AskCard[R] = factory(question)
        self._place(card)
        card.focus()
        self.pending.append(card)
        self.sig_card_opened.emit(card)
        try:
            return await card.reply
        except asyncio.CancelledError:
            if card.withdrawn is not None:
                return question.fallback()  # the window withdrew the card itself (its server left, …)
            card.withdraw(NO_ANSWER)  # the asker was cancelled (turn stopped, timed out): withdraw and go
            raise
        finally:
            self.pending.remove(card)
            self.sig_card_closed.emit(card)

    def withdraw(self, why: str, *, server: str | None = None) -> None:
        """Withdraw every open card (or those of `server`): each question gets its fallback."""
        for card in list(self.pending):
            if server is None or card.question.server == server:
                card.withdraw(why)

"""The window's asker: a registered card per question, answered, withdrawn, or cancelled with its turn."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from desktop_app.core.asks.question import Question, ask_user
from desktop_app.qt_kit.theme import restyle, tokens
from desktop_app.qt_kit.tokens import DARK, LIGHT, contrast_ratio
from desktop_app.ui.asks.card import AskCard, Tone
from desktop_app.ui.asks.card_asker import NO_ANSWER, CardAsker
from desktop_app.ui.shell.application import apply_theme
from desktop_app.ui.widgets.bordered_frame import CALM_BORDER
from tests.hosting import eventually
from tests.window_kit import run_in_qt


@dataclass(frozen=True, kw_only=True)
class Proceed(Question[bool]):
    def fallback(self) -> bool:
        return False


class ProceedCard(AskCard[bool]):
    def __init__(self, question: Proceed) -> None:
        super().__init__(question, "<b>Go ahead?</b>", tone=Tone.CAUTION)
        self.yes = self.add_button("Yes", True, default=True)
        self.no = self.add_button("No", False, right=True)

    def describe(self, reply: bool) -> str:
        return "Went ahead" if reply else "Stopped"


def test_cards_answer_withdraw_and_cancel(qapp: QApplication) -> None:
    host = QWidget()
    layout = QVBoxLayout(host)
    asker = CardAsker(layout.addWidget)
    asker.register(Proceed, ProceedCard)
    opened: list[AskCard[bool]] = []
    asker.sig_card_opened.connect(opened.append)

    async def scenario() -> None:
        # Answered by a click: the reply comes back and the card collapses to its outcome.
        answer = asyncio.ensure_future(asker.ask(Proceed(server="demo")))
        await eventually(lambda: len(asker.pending) == 1)
        card = asker.pending[0]
        assert isinstance(card, ProceedCard) and opened == [card]
        assert "demo" in card.origin.text()
        card.yes.click()
        assert await answer is True
        assert card.outcome.text() == "Went ahead" and card.yes.isHidden()
        assert asker.pending == []

        # Withdrawn by the window (its server left): the question gets its fallback.
        answer = asyncio.ensure_future(asker.ask(Proceed(server="demo")))
        await eventually(lambda: len(asker.pending) == 1)
        asker.withdraw("The server stopped.", server="demo")
        assert await answer is False
        assert opened[-1].outcome.text() == "The server stopped."

        # Timed out: the asking task is cancelled, the card says so, the fallback is returned.
        assert await ask_user(asker, Proceed(server="demo", timeout=0.05)) is False
        assert opened[-1].outcome.text() == NO_ANSWER and asker.pending == []

    run_in_qt(qapp, scenario())


def test_an_open_cards_border_is_its_tones_token_in_the_theme_shown(qapp: QApplication) -> None:
    assert [Tone.INFO.colour(LIGHT), Tone.CAUTION.colour(DARK), Tone.DANGER.colour(DARK)] == [
        LIGHT.accent,
        DARK.caution,
        DARK.danger,
    ]
    for palette in (LIGHT, DARK):
        for tone in Tone:
            assert contrast_ratio(tone.colour(palette), palette.surface) >= 3.0, "a UI part on the conversation"

    async def scenario() -> None:
        card = ProceedCard(Proceed(server="demo"))
        assert card.border[0].name() == Tone.CAUTION.colour(tokens())
        try:
            for theme in ("dark", "light"):
                apply_theme(qapp, theme)
                restyle()  # as the main window does on a change of palette
                assert card.border == (card.border[0], 2) and card.border[0].name() == Tone.CAUTION.colour(tokens())
        finally:
            apply_theme(qapp, "system")
        card.yes.click()
        restyle()
        assert card.border == (CALM_BORDER, 1), "answered, it stays calm after a change of theme"
        card.deleteLater()

    run_in_qt(qapp, scenario())

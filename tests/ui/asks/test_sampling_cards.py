"""The sampling consent and review cards: what the model would read, edits, the four answers, the review."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from desktop_app.core.asks.sampling import (
    ReviewQuestion,
    ReviewReply,
    SamplingConsent,
    SamplingDecision,
    SamplingQuestion,
)
from desktop_app.core.asks.sampling_messages import ShownMessage, ShownTool
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.cards import register_cards
from desktop_app.ui.asks.sampling_cards import ReviewCard, SamplingCard
from tests.hosting import eventually
from tests.window_kit import run_in_qt

QUESTION = SamplingQuestion(
    server="asking",
    system_prompt="You are helpful.",
    messages=(
        ShownMessage("user", "Summarise the notes", True),
        ShownMessage("user", "[image, image/png, 1,024 bytes]\nand this", False),
    ),
    model="openai/gpt-4.1",
    max_tokens=4096,
    requested_max_tokens=100_000,
    tools=(ShownTool("lookup_weather", "The weather in a city", '{"type": "object"}'),),
)


def asker_in_a_window() -> tuple[QWidget, CardAsker]:
    host = QWidget()
    asker = CardAsker(QVBoxLayout(host).addWidget)
    register_cards(asker)
    return host, asker


async def open_card(asker: CardAsker, question: Any) -> tuple[asyncio.Future[Any], Any]:
    reply = asyncio.ensure_future(asker.ask(question))
    await eventually(lambda: len(asker.pending) == 1, what="the card")
    return reply, asker.pending[0]


def test_consent_shows_the_request_and_takes_edits(qapp: QApplication) -> None:
    _host, asker = asker_in_a_window()

    async def scenario() -> None:
        reply, card = await open_card(asker, QUESTION)
        assert isinstance(card, SamplingCard)
        labels = card.details.findChildren(type(card.title))
        shown = " | ".join(label.text() for label in labels)
        assert "openai/gpt-4.1" in shown
        assert "4,096 tokens (the server asked for 100,000; your limit applies)" in shown
        assert card.tools is not None and card.tools.isReadOnly()
        assert card.tools.toPlainText() == 'lookup_weather: The weather in a city\n  input: {"type": "object"}'
        assert card.warnings.isHidden()
        assert card.system.toPlainText() == "You are helpful." and not card.system.isReadOnly()
        assert list(card.texts) == [0]  # the message with an image is shown, not editable
        card.system.setPlainText("Be brief.")
        card.texts[0].setPlainText("Summarise the notes in one line")
        card.allow_once.click()
        assert await reply == SamplingConsent(
            SamplingDecision.ONCE, system_prompt="Be brief.", texts={0: "Summarise the notes in one line"}
        )
        assert card.outcome.text() == "Allowed once with your edits" and card.details.isHidden()

        for button, decision in (
            ("allow_chat", SamplingDecision.CHAT),
            ("allow_always", SamplingDecision.ALWAYS),
            ("deny", SamplingDecision.DENY),
        ):
            reply, card = await open_card(asker, QUESTION)
            getattr(card, button).click()
            assert await reply == SamplingConsent(decision)

    run_in_qt(qapp, scenario())


def test_review_sends_edits_or_keeps_the_answer(qapp: QApplication) -> None:
    _host, asker = asker_in_a_window()

    async def scenario() -> None:
        question = ReviewQuestion(server="asking", model="openai/gpt-4.1", text="Three notes, all about cats.")
        reply, card = await open_card(asker, question)
        assert isinstance(card, ReviewCard) and card.calls is None
        card.send.click()
        assert await reply == ReviewReply(True) and card.outcome.text() == "Sent to the server"

        reply, card = await open_card(asker, question)
        card.text.setPlainText("Three notes.")
        card.send.click()
        assert await reply == ReviewReply(True, "Three notes.")

        uses = ReviewQuestion(server="asking", model="m", text="", tool_uses=(("lookup_weather", '{"city": "Oslo"}'),))
        reply, card = await open_card(asker, uses)
        assert card.calls is not None and "lookup_weather" in card.calls.text() and card.text.isHidden()
        card.keep.click()
        assert await reply == ReviewReply(False)
        assert card.outcome.text() == "Not sent: the server was told you declined"

    run_in_qt(qapp, scenario())


def test_consent_says_what_the_server_tried_that_is_not_sent(qapp: QApplication) -> None:
    _host, asker = asker_in_a_window()
    question = replace(QUESTION, wanted_context="allServers", hidden=33, tools=())

    async def scenario() -> None:
        reply, card = await open_card(asker, question)
        assert isinstance(card, SamplingCard) and card.tools is None
        assert not card.warnings.isHidden()
        assert card.warnings.text() == (
            "⚠ The server asked for your conversation too (includeContext: allServers). It is not sent.<br>"
            "⚠ 33 invisible character(s) hid in the server's text; they were removed, so the model reads what you see."
        )
        card.deny.click()
        assert await reply == SamplingConsent(SamplingDecision.DENY) and card.warnings.isHidden()

    run_in_qt(qapp, scenario())

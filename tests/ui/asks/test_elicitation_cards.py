"""The form and link cards: native editors from the schema, checks before sending, the three answers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from PySide6.QtCore import QDate, Qt, QUrl
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QLabel,
    QLineEdit,
    QListWidget,
    QVBoxLayout,
    QWidget,
)
from pytestqt.qtbot import QtBot

from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion, UrlQuestion
from desktop_app.core.asks.form_schema import parse_form_schema
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.cards import register_cards
from desktop_app.ui.asks.form_card import NO_SECRETS, FormCard
from desktop_app.ui.asks.url_card import NO_BROWSER, UrlCard
from tests.core.asks.hosting import asking_config, asking_host
from tests.hosting import eventually
from tests.servers.asking_server import PROFILE_SCHEMA
from tests.window_kit import run_in_qt

EVERY_KIND: dict[str, Any] = {
    "type": "object",
    "properties": {
        **PROFILE_SCHEMA["properties"],
        "born": {
            "type": "string",
            "format": "date",
            "title": "Birthday",
            "description": "The day you were born, exactly as it is written in your passport or identity card",
        },
        "score": {"type": "number", "minimum": 0, "maximum": 10, "default": 3.25},
        "site": {"type": "string", "format": "uri", "title": "Website", "description": "Your home page"},
    },
    "required": ["name", "email"],
}


def window_with_asker() -> tuple[QWidget, CardAsker]:
    host = QWidget()
    host.resize(640, 900)
    asker = CardAsker(QVBoxLayout(host).addWidget)
    register_cards(asker)
    return host, asker


async def open_card(asker: CardAsker, question: Any) -> tuple[asyncio.Future[Any], Any]:
    reply = asyncio.ensure_future(asker.ask(question))
    await eventually(lambda: len(asker.pending) == 1, what="the card")
    return reply, asker.pending[0]


def test_the_form_card_draws_each_field_checks_it_and_sends(qapp: QApplication) -> None:
    host, asker = window_with_asker()
    form = parse_form_schema(EVERY_KIND)

    async def scenario() -> None:
        question = FormQuestion(server="asking", message="Tell us <b>about</b> you.", form=form)
        reply, card = await open_card(asker, question)
        assert isinstance(card, FormCard)
        host.show()
        editors = {name: editor.widget for name, editor in card.editors.items()}
        assert isinstance(editors["name"], QLineEdit) and isinstance(editors["age"], QLineEdit)
        assert isinstance(editors["subscribe"], QCheckBox) and isinstance(editors["colour"], QComboBox)
        assert isinstance(editors["days"], QListWidget) and isinstance(editors["born"], QDateEdit)
        assert isinstance(editors["score"], QLineEdit) and editors["score"].text() == "3.25"
        assert editors["age"].text() == "30" and editors["age"].placeholderText() == "a whole number from 0 to 150"
        assert editors["colour"].currentText() == "Green"
        # A short editor keeps its width; its note wraps at the row's edge and is shown whole.
        await eventually(lambda: card.form.width() > 300, what="the form laid out")
        [note] = [label for label in card.form.findChildren(QLabel) if label.text().startswith("The day you were")]
        assert editors["born"].width() < note.width()
        assert note.height() >= note.heightForWidth(note.width())
        assert card.message.text() == "Tell us &lt;b&gt;about&lt;/b&gt; you."  # the server's words, not markup
        assert card.warning.text() == NO_SECRETS
        assert card.values() == {"age": 30, "subscribe": False, "colour": "g", "days": ["mon"], "score": 3.25}

        card.submit.click()  # required fields are empty: nothing is sent, the problems are shown
        assert not reply.done()
        assert card.problems["name"].text() == "Name is required" and card.problems["name"].isVisible()
        assert card.problems["email"].text() == "Email is required"
        editors["name"].setText("Ada")
        editors["email"].setText("not an email")
        editors["site"].setText("example.com")
        card.submit.click()
        assert not reply.done() and not card.problems["name"].isVisible()
        assert "must be an email address" in card.problems["email"].text()
        assert card.problems["site"].text() == "Website must be a full address such as https://example.com"

        editors["email"].setText("ada@example.com")
        editors["site"].setText("https://ada.example")
        editors["born"].setDate(QDate(1815, 12, 10))
        days = editors["days"]
        days.item(0).setCheckState(Qt.CheckState.Unchecked)
        days.item(4).setCheckState(Qt.CheckState.Checked)
        editors["subscribe"].setChecked(True)
        card.submit.click()
        answer = await reply
        assert answer == ElicitReply(
            "accept",
            {
                "name": "Ada",
                "email": "ada@example.com",
                "age": 30,
                "subscribe": True,
                "colour": "g",
                "days": ["fri"],
                "born": "1815-12-10",
                "score": 3.25,
                "site": "https://ada.example",
            },
        )
        assert card.outcome.text() == "Sent to asking" and card.form.isHidden()

        for button, action, summary in (("decline", "decline", "Declined"), ("cancel", "cancel", "Cancelled")):
            reply, card = await open_card(asker, question)
            getattr(card, button).click()
            assert await reply == ElicitReply(action)
            assert card.outcome.text() == summary

    run_in_qt(qapp, scenario())


def test_optional_fields_without_defaults_start_empty(qapp: QApplication) -> None:
    _host, asker = window_with_asker()
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "n": {"type": "integer", "minimum": 1},
            "pick": {"type": "string", "enum": ["a", "b"]},
            "many": {"type": "array", "items": {"enum": ["x", "y"]}},
        },
    }

    async def scenario() -> None:
        reply, card = await open_card(asker, FormQuestion(server="s", message="m", form=parse_form_schema(schema)))
        assert card.values() == {}
        assert card.editors["n"].widget.text() == ""
        assert card.editors["n"].widget.placeholderText() == "a whole number, at least 1"
        card.editors["n"].widget.setText("4")
        card.editors["pick"].widget.setCurrentIndex(2)
        card.submit.click()
        assert await reply == ElicitReply("accept", {"n": 4, "pick": "b"})

    run_in_qt(qapp, scenario())


def test_the_link_card_opens_the_page_only_when_asked(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    _host, asker = window_with_asker()
    opened: list[str] = []

    def fake_browser(url: QUrl) -> bool:
        opened.append(url.toString())
        return True

    monkeypatch.setattr(UrlCard, "open_url", fake_browser)

    async def scenario() -> None:
        question = UrlQuestion(server="asking", message="Connect.", url="http://127.0.0.1:8765/x?y=1")
        reply, card = await open_card(asker, question)
        assert isinstance(card, UrlCard)
        assert "127.0.0.1" in card.domain.text() and "on this computer, not encrypted" in card.domain.text()
        assert card.url.text() == "http://127.0.0.1:8765/x?y=1"
        assert not card.warnings.isVisibleTo(card) and card.open_page.isDefault()
        assert opened == []
        card.decline.click()
        assert await reply == ElicitReply("decline") and opened == []

        retry = UrlQuestion(server="asking", message="Pay first.", url="https://pay.example.com/c", then_retry=True)
        reply, card = await open_card(asker, retry)
        card.open_page.click()
        assert await reply == ElicitReply("accept")
        assert opened == ["https://pay.example.com/c"]
        assert card.done.isVisibleTo(card) and "continues once you finish" in card.outcome.text()
        card.done.click()  # the server never reports it: the user says so
        assert retry.completion.is_set()
        await eventually(lambda: card.outcome.text() == "Done: you said the step on pay.example.com is finished")
        assert not card.done.isVisibleTo(card)

    run_in_qt(qapp, scenario())


def test_with_no_browser_the_link_card_offers_the_copy_and_answers_only_when_the_user_opened_it(
    qapp: QApplication, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    host_widget, cards = window_with_asker()
    tries: list[str] = []
    monkeypatch.setattr(UrlCard, "open_url", lambda u: tries.append(u.toString()) and False)
    url = "https://example.com/connect?step=1"

    async def scenario() -> None:
        async with asking_host(cards.ask, asking_config("legacy"), stdio=True) as (host, _asker):
            call = asyncio.ensure_future(host.connection("asking").call_tool("ask_link", {"url": url}))
            await eventually(lambda: len(cards.pending) == 1, what="the link card")
            card = cards.pending[0]
            assert isinstance(card, UrlCard)
            host_widget.show()
            assert card.copy.isVisibleTo(host_widget) and not card.opened_myself.isVisibleTo(host_widget)
            qtbot.mouseClick(card.open_page, Qt.MouseButton.LeftButton)
            assert tries == [url]
            # One state: the failure and what to do instead; nothing answered, nothing said to be opened.
            assert card.open and not card.reply.done()
            assert card.failed.isVisibleTo(host_widget) and card.failed.text() == NO_BROWSER
            assert not card.open_page.isVisibleTo(host_widget)
            assert card.copy.isDefault() and card.opened_myself.isVisibleTo(host_widget)
            shown = " ".join(label.text() for label in card.findChildren(QLabel) if label.isVisibleTo(host_widget))
            assert "Opened" not in shown and not card.outcome.isVisibleTo(host_widget)
            qtbot.mouseClick(card.copy, Qt.MouseButton.LeftButton)
            assert QApplication.clipboard().text() == url and card.copy.text() == "Copied"
            assert card.opened_myself.isDefault() and not call.done()
            qtbot.mouseClick(card.opened_myself, Qt.MouseButton.LeftButton)
            result: Any = await call
            assert json.loads(result.content[0].text) == {"action": "accept"}
            assert card.outcome.text() == "You opened example.com yourself"
            assert not card.failed.isVisibleTo(host_widget)

    run_in_qt(qapp, scenario())


@pytest.mark.parametrize(
    ("url", "shown", "warning"),
    [
        (
            "https://\u0430pple.com/signin",  # the first letter is Cyrillic
            "https://xn--pple-43d.com/signin",
            "⚠ Look-alike: the name mixes Cyrillic and Latin letters",
        ),
        (
            "https://apple.com@evil.example/signin",
            "https://apple.com@evil.example/signin",
            "⚠ Misleading: 'apple.com@' is a user name, not the site: the page is on evil.example",
        ),
    ],
)
def test_a_misleading_link_from_a_real_server_is_shown_as_the_browser_reads_it(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch, url: str, shown: str, warning: str
) -> None:
    host_widget, cards = window_with_asker()
    opened: list[str] = []
    monkeypatch.setattr(UrlCard, "open_url", lambda u: opened.append(u.toString(QUrl.FullyEncoded)) or True)

    async def scenario() -> None:
        async with asking_host(cards.ask, asking_config("legacy"), stdio=True) as (host, _asker):
            call = asyncio.ensure_future(host.connection("asking").call_tool("ask_link", {"url": url}))
            await eventually(lambda: len(cards.pending) == 1, what="the link card")
            card = cards.pending[0]
            assert isinstance(card, UrlCard)
            host_widget.show()
            domain = shown.split("/")[2].rpartition("@")[2]
            assert card.domain.text() == f"It goes to <b>{domain}</b>"
            assert card.url.text() == shown and card.url.textFormat() == Qt.TextFormat.PlainText
            assert card.warnings.isVisibleTo(host_widget) and card.warnings.text().startswith(warning)
            text = " ".join(label.text() for label in card.findChildren(QLabel))
            assert "\u0430" not in text  # the look-alike letter is never drawn
            assert card.decline.isDefault() and not card.open_page.isDefault()  # Enter does not open it
            card.open_page.click()
            result: Any = await call
            assert json.loads(result.content[0].text) == {"action": "accept"}
            assert opened == [shown]  # the page opened is the address shown

    run_in_qt(qapp, scenario())


def test_a_long_link_is_shown_short_with_the_whole_address_one_click_away(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    host_widget, cards = window_with_asker()
    opened: list[str] = []
    monkeypatch.setattr(UrlCard, "open_url", lambda u: opened.append(u.toString(QUrl.FullyEncoded)) or True)
    url = "https://login.example.com/authorize?state=" + "s" * 247 + "&scope=read"  # 300 characters

    async def scenario() -> None:
        async with asking_host(cards.ask, asking_config("legacy")) as (host, _asker):
            call = asyncio.ensure_future(host.connection("asking").call_tool("ask_link", {"url": url}))
            await eventually(lambda: len(cards.pending) == 1, what="the link card")
            card = cards.pending[0]
            assert isinstance(card, UrlCard)
            host_widget.show()
            assert card.url.text() == card.question.link.short != url
            assert card.url.text().startswith("https://login.example.com/authorize?state=sss")
            assert card.url.text().endswith("…" + url[-16:])
            assert card.show_full.isVisibleTo(host_widget) and "300 characters" in card.show_full.text()
            card.show_full.click()
            assert card.url.text() == url and not card.show_full.isVisibleTo(host_widget)
            card.copy.click()
            assert QApplication.clipboard().text() == url
            card.open_page.click()
            result: Any = await call
            assert json.loads(result.content[0].text) == {"action": "accept"}
            assert opened == [url]

    run_in_qt(qapp, scenario())


def test_a_short_link_has_no_show_full_button(qapp: QApplication) -> None:
    _host, asker = window_with_asker()

    async def scenario() -> None:
        reply, card = await open_card(asker, UrlQuestion(server="s", message="m", url="https://example.com/a"))
        assert card.url.text() == "https://example.com/a" and not card.show_full.isVisibleTo(card)
        card.cancel.click()
        assert await reply == ElicitReply("cancel")

    run_in_qt(qapp, scenario())

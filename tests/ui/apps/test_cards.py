"""The cards of a view's questions: the whole link shown, the safe answer the default, no reply twice."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from desktop_app.core.apps.questions import AppPermissionQuestion, OpenLinkQuestion
from desktop_app.ui.apps.cards import OpenLinkCard, PermissionCard
from tests.window_kit import run_in_qt

URL = "https://example.com/a/very/long/path?with=query&and=more#fragment"


def test_open_link_card_shows_the_whole_address_and_defaults_to_not_opening(qapp: QApplication) -> None:
    async def scenario() -> None:
        card = OpenLinkCard(OpenLinkQuestion(server="demo", url=URL, app="ui://demo/board"))
        assert card.url.text() == URL
        assert "ui://demo/board" in card.origin.text() and "demo" in card.origin.text()
        assert card.keep_button.isDefault() and not card.open_button.isDefault()
        card.open_button.click()
        assert card.reply.result() is True
        assert card.outcome.text().startswith("Opened https://example.com/")
        card.keep_button.click()  # answered already: nothing changes
        assert card.reply.result() is True

    run_in_qt(qapp, scenario())


def test_permission_card_words_the_permission_and_denies_by_default(qapp: QApplication) -> None:
    async def scenario() -> None:
        card = PermissionCard(AppPermissionQuestion(server="demo", permission="camera", app="ui://demo/board"))
        assert "Let the app use your camera?" in card.title.text()
        assert card.deny_button.isDefault()
        card.deny_button.click()
        assert card.reply.result() is False and card.outcome.text() == "Denied"
        other = AppPermissionQuestion(server="demo", permission="geolocation", app="ui://demo/board")
        assert other.wording == "know your location" and other.fallback() is False

    run_in_qt(qapp, scenario())


def test_permission_card_says_how_long_a_yes_lasts(qapp: QApplication) -> None:
    async def scenario() -> None:
        camera = PermissionCard(AppPermissionQuestion(server="demo", permission="camera", app="ui://demo/board"))
        location = PermissionCard(AppPermissionQuestion(server="demo", permission="geolocation", app="ui://demo/board"))
        assert "Only for this view, only this time." in widget_texts(camera)
        assert "Only for this view, until it closes." in widget_texts(location)

    run_in_qt(qapp, scenario())


def widget_texts(card: PermissionCard) -> str:
    return "\n".join(label.text() for label in card.findChildren(QLabel))


def test_open_link_card_shows_the_warnings_in_plain_text(qapp: QApplication) -> None:
    async def scenario() -> None:
        question = OpenLinkQuestion(
            server="demo", url="https://xn--pple-43d.com/<b>x", app="ui://demo/board", warnings=("look-alike: <i>",)
        )
        card = OpenLinkCard(question)
        [warning] = [label for label in card.findChildren(QLabel) if label.objectName() == "linkWarning"]
        assert warning.text() == "⚠ Look-alike: <i>"
        assert card.url.textFormat() == warning.textFormat() == Qt.TextFormat.PlainText
        assert card.keep_button.isDefault()

    run_in_qt(qapp, scenario())

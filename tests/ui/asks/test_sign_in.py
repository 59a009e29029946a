"""Sign-in in the window: the needs-sign-in state, the Sign in buttons, the card under a tool call."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QListWidget, QPushButton
from pytestqt.qtbot import QtBot

from desktop_app.bridge import CoreBridge
from desktop_app.core.auth.question import SignInQuestion
from desktop_app.core.host import ServerHost
from desktop_app.core.secret_store import open_secret_store
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.sign_in_card import WAITING, SignInCard
from desktop_app.ui.asks.sign_in_details import SignInDetails
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import FAST_RESTARTS, eventually
from tests.servers.oauth_server import FollowingBrowser, OAuthOptions, OAuthTestServer
from tests.window_kit import needing_sign_in, run_in_qt, run_window_scenario

until = functools.partial(eventually, timeout=60.0)


def test_window_shows_needs_sign_in_then_signs_in_and_lists_the_catalog(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    with OAuthTestServer(OAuthOptions()).running() as server:
        browser = FollowingBrowser()

        async def steps(window: MainWindow) -> None:
            connection = await needing_sign_in(window, "tracker", browser)

            panel = window.servers_panel
            sign_in = panel.findChild(QPushButton, "signIn")
            assert panel.selected() == "tracker" and sign_in is not None and sign_in.isVisibleTo(panel)
            rows = panel.findChild(QListWidget, "serverList")
            assert rows is not None and "needs sign-in" in rows.currentItem().text()
            tree_buttons = window.resources.browser.sign_in_buttons
            await until(lambda: tree_buttons.button("tracker") is not None, what="the tree's Sign in button")
            row_button = tree_buttons.button("tracker")
            assert row_button is not None and row_button.text() == "Sign in"

            qtbot.mouseClick(row_button, Qt.MouseButton.LeftButton)
            await until(lambda: connection.status.state is ServerState.READY, what="signed in and connected")
            browser_tree = window.resources.browser
            await until(lambda: browser_tree.index_of("tracker", "auth://note").isValid(), what="the catalog")
            await until(lambda: tree_buttons.button("tracker") is None, what="the row's button to go")
            assert not sign_in.isVisibleTo(panel)
            [sign_out] = [b for b in panel.findChildren(QPushButton) if b.text() == "Sign out"]
            assert sign_out.isVisibleTo(panel)
            assert "Signed in" in browser.pages[0]

        run_window_scenario(qapp, tmp_path, steps, servers={"tracker": {"type": "http", "url": server.url}})


def test_sign_in_card_follows_the_sign_in(qapp: QApplication, qtbot: QtBot, tmp_path: Path) -> None:
    with OAuthTestServer(OAuthOptions()).running() as server:
        secrets = open_secret_store(tmp_path / "data", prefer="plaintext-file")

        async def scenario() -> None:
            host = ServerHost(secrets=secrets, policy=FAST_RESTARTS)
            closed_tab = FollowingBrowser(follow=False)
            host.sign_in.opener = closed_tab
            bridge = CoreBridge(host, secrets)
            host.start([ServerConfig(name="tracker", transport=TransportKind.HTTP, url=server.url, timeout=10.0)])
            await host.wait_settled(30)
            cards: list[SignInCard] = []

            def place(card: object) -> None:
                assert isinstance(card, SignInCard)
                qtbot.addWidget(card)
                card.show()
                cards.append(card)

            asker = CardAsker(place)
            asker.register(SignInQuestion, lambda question: SignInCard(question, bridge))
            try:
                question = SignInQuestion(server="tracker", call_id="c1", reason="the sign-in has expired")
                answer = asyncio.ensure_future(asker.ask(question))
                await until(lambda: bool(cards))
                card = cards[0]
                assert "Sign in to <b>tracker</b>" in card.title.text()
                assert card.detail.text() == "The sign-in has expired"
                qtbot.mouseClick(card.sign_in, Qt.MouseButton.LeftButton)
                assert await answer is True
                assert card.outcome.text() == WAITING and card.cancel.isVisibleTo(card)
                sign_in = asyncio.ensure_future(host.connection("tracker").auth.sign_in())
                await until(lambda: bool(closed_tab.opened), what="the browser")
                qtbot.mouseClick(card.cancel, Qt.MouseButton.LeftButton)
                assert await sign_in == "sign-in cancelled"
                assert card.outcome.text() == "Not signed in: sign-in cancelled."
                assert not card.cancel.isVisibleTo(card)
                assert card.details.isVisibleTo(card), "a failed sign-in offers its Details"
                qtbot.mouseClick(card.details, Qt.MouseButton.LeftButton)
                await until(lambda: card.findChild(SignInDetails) is not None, what="the Details window")
                details = card.findChild(SignInDetails)
                assert details.isVisible() and "tracker" in details.windowTitle()
                details.close()
                assert card.paste.objectName() == "pasteFallback", "the paste fallback sits in the card"
            finally:
                await host.stop_all()

        run_in_qt(qapp, scenario())

"""The window's sign-in help: the Details view of a failed sign-in (with Copy), and the paste fallback
for a browser that cannot reach this computer, against real servers on 127.0.0.1."""

from __future__ import annotations

import functools
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.host import ServerHost
from desktop_app.core.secret_store import open_secret_store
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.ui.asks.sign_in_details import SignInDetails
from desktop_app.ui.asks.sign_in_paste import PasteFallback
from tests.hosting import FAST_RESTARTS, eventually
from tests.servers.oauth_browsers import ElsewhereBrowser
from tests.servers.oauth_server import FollowingBrowser, OAuthOptions, OAuthTestServer
from tests.window_kit import run_in_qt

until = functools.partial(eventually, timeout=30.0)
SHOTS = Path("/tmp")


def tracker(server: OAuthTestServer) -> ServerConfig:
    return ServerConfig(name="tracker", transport=TransportKind.HTTP, url=server.url, timeout=10.0)


def test_details_of_a_failed_sign_in_name_the_step_and_copy_without_secrets(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    with OAuthTestServer(OAuthOptions(token_status=500)).running() as server:
        secrets = open_secret_store(tmp_path / "data", prefer="plaintext-file")

        async def scenario() -> None:
            host = ServerHost(secrets=secrets, policy=FAST_RESTARTS)
            host.sign_in.opener = FollowingBrowser()
            host.start([tracker(server)])
            try:
                await host.wait_settled(30)
                auth = host.connection("tracker").auth
                failure = await auth.sign_in()
                assert failure is not None and "server_error" in failure
                details = SignInDetails("tracker", auth.diagnosis)
                qtbot.addWidget(details)
                details.show()
                steps = details.text.toPlainText().splitlines()
                assert details.summary.text() == "The sign-in stopped at: token request."
                assert steps[-1].startswith(
                    f"✗ token request (authorization code): POST {server.issuer}/token → HTTP 500"
                )
                assert "server_error: the token service is down for maintenance" in steps[-1]
                details.grab().save(str(SHOTS / "sign-in-details.png"))
                qtbot.mouseClick(details.answers, Qt.MouseButton.LeftButton)
                shown = details.text.toPlainText()
                assert '"client_secret": "•••"' in shown  # the registration's answer, its secret masked
                qtbot.mouseClick(details.copy, Qt.MouseButton.LeftButton)
                copied = QGuiApplication.clipboard().text()
                client = next(iter(server.clients.values()))
                assert copied == auth.diagnosis.text() if auth.diagnosis else False
                assert client.secret and client.secret not in copied
                assert server.requests.token[-1]["code"] not in copied
            finally:
                await host.stop_all()

        run_in_qt(qapp, scenario())


def test_the_paste_field_signs_in_when_the_browser_is_elsewhere(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    with OAuthTestServer(OAuthOptions()).running() as server:
        secrets = open_secret_store(tmp_path / "data", prefer="plaintext-file")
        browser = ElsewhereBrowser()

        async def scenario() -> None:
            host = ServerHost(secrets=secrets, policy=FAST_RESTARTS)
            host.sign_in.opener = browser
            host.start([tracker(server)])
            try:
                await host.wait_settled(30)
                connection = host.connection("tracker")
                fallback = PasteFallback(connection.auth.paste)
                qtbot.addWidget(fallback)
                fallback.resize(640, 220)
                assert fallback.isHidden()  # no sign-in waits for a page
                signing_in = connection.auth.start_sign_in()
                await until(lambda: bool(browser.ended_on), what="the browser elsewhere")
                fallback.show()
                assert fallback.page.text() == browser.opened[0]
                qtbot.mouseClick(fallback.toggle, Qt.MouseButton.LeftButton)
                assert fallback.steps.isVisible()

                qtbot.keyClicks(fallback.address, "http://127.0.0.1:1/callback?code=guess&state=guess")
                qtbot.mouseClick(fallback.use, Qt.MouseButton.LeftButton)
                assert fallback.problem.text().startswith("Not taken: that is not the address the sign-in returns to")
                fallback.grab().save(str(SHOTS / "sign-in-paste.png"))
                assert not signing_in.done()

                fallback.address.setText(browser.ended_on[0])
                qtbot.keyClick(fallback.address, Qt.Key.Key_Return)
                assert await signing_in is None
                await until(lambda: connection.status.state is ServerState.READY, what="signed in and connected")
                assert fallback.isHidden()  # the sign-in ended: nothing to paste any more
            finally:
                await host.stop_all()

        run_in_qt(qapp, scenario())

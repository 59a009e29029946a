"""The Servers panel's sign-in help: Details… after a failed sign-in (each step, with Copy) and the paste
fallback while a sign-in waits for a browser on another computer, clicked as a user would, against
authorization servers on 127.0.0.1 (one with a broken token endpoint, one that works)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.bridge import CoreBridge
from desktop_app.core.host import ServerHost
from desktop_app.core.secret_store import open_secret_store
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.ui.asks.sign_in_details import SignInDetails
from desktop_app.ui.servers.servers_panel import ServersPanel
from tests.hosting import FAST_RESTARTS, eventually
from tests.servers.oauth_browsers import ElsewhereBrowser, FollowingBrowser
from tests.servers.oauth_server import OAuthOptions, OAuthTestServer
from tests.window_kit import run_in_qt

until = functools.partial(eventually, timeout=60.0)


def remote(name: str, server: OAuthTestServer) -> ServerConfig:
    return ServerConfig(name=name, transport=TransportKind.HTTP, url=server.url, timeout=10.0)


def test_a_failed_sign_in_offers_its_details_and_a_browser_elsewhere_can_paste(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    broken_options, working_options = OAuthOptions(token_status=500), OAuthOptions()
    with (
        OAuthTestServer(broken_options).running() as broken,
        OAuthTestServer(working_options).running() as working,
    ):
        secrets = open_secret_store(tmp_path / "data", prefer="plaintext-file")

        async def scenario() -> None:
            host = ServerHost(secrets=secrets, policy=FAST_RESTARTS)
            host.sign_in.opener = FollowingBrowser()
            bridge = CoreBridge(host, secrets)
            host.start([remote("broken", broken), remote("tracker", working)])
            panel = ServersPanel(bridge)
            qtbot.addWidget(panel)
            panel.resize(320, 640)
            panel.show()
            details = panel.details
            try:
                await host.wait_settled(30)
                assert panel.selected() == "broken"
                assert details.sign_in.isVisible() and not details.sign_in_details.isVisible(), "nothing failed yet"

                qtbot.mouseClick(details.sign_in, Qt.MouseButton.LeftButton)
                auth = host.connection("broken").auth
                await until(lambda: details.sign_in_details.isVisible(), what="Details… after the failure")
                assert auth.last_failure is not None and "server_error" in auth.last_failure
                assert details.sign_in.isVisible(), "the user may try again"
                qtbot.mouseClick(details.sign_in_details, Qt.MouseButton.LeftButton)
                window = details.findChild(SignInDetails)
                assert window is not None and window.isVisible() and "broken" in window.windowTitle()
                assert window.summary.text() == "The sign-in stopped at: token request."
                last = window.text.toPlainText().splitlines()[-1]
                assert last.startswith(f"✗ token request (authorization code): POST {broken.issuer}/token → HTTP 500")
                qtbot.mouseClick(window.copy, Qt.MouseButton.LeftButton)
                copied = QGuiApplication.clipboard().text()
                assert auth.diagnosis is not None and copied == auth.diagnosis.text()
                client = next(iter(broken.clients.values()))
                assert client.secret and client.secret not in copied
                shoot(window, "servers-panel-sign-in-details")
                window.close()

                # The browser is on another computer: the page to open and the field to paste into.
                elsewhere = ElsewhereBrowser()
                host.sign_in.opener = elsewhere
                rows = panel._list
                tracker_row = next(
                    rows.item(i) for i in range(rows.count()) if rows.item(i).text().startswith("tracker")
                )
                rows.scrollToItem(tracker_row)
                qtbot.mouseClick(
                    rows.viewport(), Qt.MouseButton.LeftButton, pos=rows.visualItemRect(tracker_row).center()
                )
                assert panel.selected() == "tracker" and not details.sign_in_details.isVisible()
                qtbot.mouseClick(details.sign_in, Qt.MouseButton.LeftButton)
                await until(lambda: bool(elsewhere.ended_on), what="the browser elsewhere")
                paste = details.paste
                assert paste is not None
                await until(paste.isVisible, what="the paste fallback")
                assert paste.page.text() == elsewhere.opened[0]
                qtbot.mouseClick(paste.toggle, Qt.MouseButton.LeftButton)
                shoot(panel, "servers-panel-paste")
                qtbot.mouseClick(paste.address, Qt.MouseButton.LeftButton)
                qtbot.keyClicks(paste.address, elsewhere.ended_on[0])
                qtbot.keyClick(paste.address, Qt.Key.Key_Return)
                await until(lambda: host.connection("tracker").status.state is ServerState.READY, what="signed in")
                await until(lambda: not paste.isVisible(), what="nothing left to paste")
                assert details.sign_out.isVisible()
            finally:
                await host.stop_all()

        run_in_qt(qapp, scenario())


def shoot(widget: object, name: str) -> None:
    """Keep a picture of `widget` when MCP_DESK_SCREENSHOTS names a folder (to look at, not to compare)."""
    if folder := os.environ.get("MCP_DESK_SCREENSHOTS"):
        widget.grab().save(str(Path(folder) / f"{name}.png"))  # type: ignore[attr-defined]

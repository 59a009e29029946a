"""Quitting the real app at the moments that race with it ends the app and leaves no process behind.

Each test closes the window as a user does, right at the moment: a dialog just closed (another still open),
a server starting (one mid-handshake, one just restarted), a turn streaming its answer, a sign-in waiting
for the browser. `run_window_scenario` fails if quitting hangs (printing what still runs) or leaves a
child process; nothing here waits for time to pass.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.core.server_status import ServerState
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import FIXTURE_SCRIPT, eventually
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text
from tests.servers.oauth_browsers import FollowingBrowser
from tests.servers.oauth_server import OAuthOptions, OAuthTestServer
from tests.ui.chat_window import bubbles, run_app
from tests.window_kit import run_window_scenario

FIXTURE = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}
pytestmark = LITELLM_WARNINGS
HUNG = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT), "--hang-on-start"], "timeout": 3600}


@pytest.mark.stdio
def test_quitting_as_a_dialog_closes_and_another_is_open(qapp: QApplication, tmp_path: Path) -> None:
    async def steps(window: MainWindow) -> None:
        window.composer.editor.setPlainText("Hello?")
        window.composer.send()  # no model chosen: Settings open, saying why
        await eventually(lambda: window.findChildren(SettingsDialog), 60.0, "the settings dialog")
        window.settings_actions.open_settings()  # a second one, left open
        opened = [d for d in window.findChildren(SettingsDialog) if d.isVisible()]
        assert len(opened) == 2
        opened[0].reject()  # and the window closes in this same turn of the loop

    run_window_scenario(qapp, tmp_path, steps, servers={"fx": FIXTURE}, ready=1)


def test_quitting_while_servers_start(qapp: QApplication, tmp_path: Path) -> None:
    async def steps(window: MainWindow) -> None:
        host = window.bridge.host
        assert host.connection("hung").status.state is ServerState.STARTING, "its handshake never ends"
        window.bridge.restart_server("fx")  # spawning anew as the window closes

    run_window_scenario(qapp, tmp_path, steps, servers={"fx": FIXTURE, "hung": HUNG}, ready=1)


def test_quitting_while_a_turn_streams(qapp: QApplication, tmp_path: Path, llm: ScriptedLLM) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        llm.queue(text(*[f"word{i} " for i in range(2000)], delay=0.05))
        window.composer.editor.setPlainText("Talk for a long time")
        window.composer.send()
        await eventually(
            lambda: bubbles(window, "assistant") and bubbles(window, "assistant")[-1].text, 60.0, "streaming"
        )
        assert window.chat.busy

    run_app(qapp, tmp_path, llm, scenario)


def test_quitting_while_a_sign_in_waits_for_the_browser(qapp: QApplication, tmp_path: Path) -> None:
    closed_tab = FollowingBrowser(follow=False)  # the page is shown, the user never comes back

    async def steps(window: MainWindow) -> None:
        host = window.bridge.host
        await eventually(lambda: "tracker" in host.connections, 60.0, "the server to start")
        connection = host.connection("tracker")
        await eventually(lambda: connection.status.state is ServerState.NEEDS_SIGN_IN, 60.0, "needs sign-in")
        host.sign_in.opener = closed_tab
        window.bridge.sign_in("tracker")
        await eventually(lambda: closed_tab.opened, 60.0, "the sign-in page in the browser")
        assert connection.status.state is ServerState.SIGNING_IN, "its loopback listener waits for the browser"

    with OAuthTestServer(OAuthOptions()).running() as server:
        run_window_scenario(qapp, tmp_path, steps, servers={"tracker": {"type": "http", "url": server.url}})

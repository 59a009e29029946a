"""The window's sign-in against attacks: a forged callback racing the browser, a 60 MB token."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QPushButton

from desktop_app.core.server_status import ServerState
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import eventually
from tests.servers.oauth_server import FollowingBrowser, ForgingBrowser, OAuthOptions, OAuthTestServer
from tests.window_kit import needing_sign_in, run_window_scenario

until = functools.partial(eventually, timeout=30.0)


def click_sign_in(
    qapp: QApplication,
    tmp_path: Path,
    server: OAuthTestServer,
    browser: FollowingBrowser,
    then: Callable[[MainWindow], Awaitable[None]],
) -> None:
    """The window, its server waiting for sign-in, the panel's Sign in button clicked; then `then`."""

    async def steps(window: MainWindow) -> None:
        await needing_sign_in(window, "tracker", browser)
        sign_in = window.servers_panel.findChild(QPushButton, "signIn")
        assert sign_in is not None
        sign_in.click()
        await then(window)

    run_window_scenario(qapp, tmp_path, steps, servers={"tracker": {"type": "http", "url": server.url}})


def test_a_forged_callback_does_not_cancel_the_windows_sign_in(qapp: QApplication, tmp_path: Path) -> None:
    racing = ForgingBrowser()

    async def signed_in(window: MainWindow) -> None:
        connection = window.bridge.host.connection("tracker")
        await until(lambda: connection.status.state is ServerState.READY, what="signed in and connected")

    with OAuthTestServer(OAuthOptions()).running() as server:
        click_sign_in(qapp, tmp_path, server, racing, signed_in)
    assert [response.status_code for response in racing.forged] == [400, 400, 400, 400]
    assert "Signed in" in racing.pages[0]


def test_a_60_mb_token_fails_the_windows_sign_in_in_one_line(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the secret store, looked at below

    async def refused(window: MainWindow) -> None:
        connection = window.bridge.host.connection("tracker")
        await until(lambda: connection.auth.last_failure is not None, what="the sign-in to fail")
        await until(lambda: connection.status.state is ServerState.NEEDS_SIGN_IN, what="needs sign-in again")
        assert (
            connection.auth.last_failure
            == f"the answer from {server.as_origin}/token is larger than 1 MiB; refusing it"
        )
        assert connection.status.reason == connection.auth.last_failure

    with OAuthTestServer(OAuthOptions(token_size=60 * 1024 * 1024)).running() as server:
        click_sign_in(qapp, tmp_path, server, FollowingBrowser(), refused)
        (stream,) = server.streams
        assert stream.ended.wait(30) and not stream.completed and stream.sent < 60 * 1024 * 1024 // 4
    stored = [file for file in (tmp_path / "data").rglob("*") if file.is_file()]
    assert stored and all(file.stat().st_size < 64 * 1024 for file in stored)

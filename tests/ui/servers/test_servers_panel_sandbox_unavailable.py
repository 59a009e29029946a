"""Where no sandbox works, the Servers panel says why and offers to run the server without it, this time or
always (real clicks, a real stdio server); an organisation that requires the sandbox gets no such offer."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.bridge import CoreBridge
from desktop_app.core.config_file import load_config
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.host import ServerHost
from desktop_app.core.sandbox.landlock import LandlockUnavailable
from desktop_app.core.sandbox.probe import probe
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import open_transport
from desktop_app.ui.servers.servers_panel import ServersPanel
from tests.core.sandbox.conftest import Home, home  # noqa: F401  (the planted home fixture)
from tests.hosting import FAST_RESTARTS, eventually
from tests.policy_files import put_policy
from tests.window_kit import run_in_qt


def _no_landlock() -> int:
    raise LandlockUnavailable(errno.ENOSYS, "this kernel has no Landlock")


def _panel(tmp_path: Path, config: ServerConfig) -> tuple[ServersPanel, ServerHost, Path]:
    """The panel over a host that finds no sandbox here (call on the running loop)."""
    path = tmp_path / "servers.json"
    store = ConfigStore(path)
    store.upsert(config)
    host = ServerHost(
        policy=FAST_RESTARTS,
        target_factory=lambda c, hooks: open_transport(
            c, hooks, sandbox=lambda: probe(which=lambda _: None, landlock_abi=_no_landlock)
        ),
    )
    panel = ServersPanel(CoreBridge(host, None, store))
    host.start([config])
    panel.resize(420, 640)
    panel.show()
    return panel, host, path


def test_this_time_runs_it_unconfined_and_saves_nothing_always_saves_the_entry(
    qapp: QApplication,
    qtbot: QtBot,
    tmp_path: Path,
    home: Home,  # noqa: F811
) -> None:
    async def scenario() -> None:
        panel, host, path = _panel(tmp_path, home.config(sandboxed=True))
        details = panel.details
        try:
            await eventually(lambda: details.run_once.isVisible(), 30, "the offer to run it without the sandbox")
            assert "This system cannot sandbox it: bubblewrap (bwrap) is not installed" in details.unavailable.text()
            assert "apt install bubblewrap" in details.unavailable.text()
            qtbot.mouseClick(details.run_once, Qt.MouseButton.LeftButton)
            await eventually(lambda: host.connection("probe").status.state is ServerState.READY, 30, "started")
            await eventually(lambda: details.unavailable_row.isHidden(), what="the offer gone once it runs")
            assert details.protection.text() == "Protection: not sandboxed"
            assert load_config(path).servers["probe"].sandbox_enabled  # this time only: nothing saved

            host.connection("probe").confinement.unconfined = False  # as after quitting the app
            await host.restart("probe")
            await eventually(lambda: details.run_always.isVisible(), 30, "the offer again")
            qtbot.mouseClick(details.run_always, Qt.MouseButton.LeftButton)
            await eventually(lambda: not load_config(path).servers["probe"].sandbox_enabled, what="saved off")
            await eventually(lambda: host.connection("probe").status.state is ServerState.READY, 30, "started")
        finally:
            await host.stop_all()

    run_in_qt(qapp, scenario())


def test_where_the_organisation_requires_the_sandbox_nothing_offers_to_run_without_it(
    qapp: QApplication,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    home: Home,  # noqa: F811
) -> None:
    put_policy(tmp_path, monkeypatch, {"sandbox": {"required": True}})

    async def scenario() -> None:
        panel, host, _path = _panel(tmp_path, home.config(sandboxed=False))
        details = panel.details
        try:
            await eventually(lambda: details.unavailable_row.isVisible(), 30, "why it cannot start")
            assert details.unavailable.text().startswith("Your organisation requires the sandbox (sandbox.required)")
            assert details.run_once.isHidden() and details.run_always.isHidden()
            assert host.connection("probe").status.state is ServerState.FAILED
        finally:
            await host.stop_all()

    run_in_qt(qapp, scenario())

"""The whole app: window up with real servers, a broken config survived, a clean quit."""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox

from desktop_app.app import run_window
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.host import ServerHost
from desktop_app.core.server_status import ServerState
from desktop_app.session import config_notice
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import FIXTURE_SCRIPT, eventually, live_children
from tests.llm_server import LITELLM_WARNINGS
from tests.window_kit import main_window, run_in_qt, run_window_scenario, window_session

pytestmark = LITELLM_WARNINGS  # the app warms litellm up in the background
_until = functools.partial(eventually, timeout=60.0)
QUIT_DEADLINE_S = 60
"""Quitting must end; how fast it ends is measured in bench/, not asserted here."""


def test_window_shows_servers_and_quits_cleanly(qapp: QApplication, tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps({"mcpServers": {"fixture": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}}})
    )

    async def scenario() -> None:
        running = asyncio.ensure_future(run_window(qapp, config))
        window = await main_window(qapp)
        host = window.bridge.host
        await _until(lambda: host.ready_count() == 1, what="the server ready")
        labels = [label.text() for label in window.statusBar().findChildren(QLabel)]
        assert "Servers ready: 1/1" in labels
        assert window.status_meter.servers_label.isVisible(), "the start-up note made way for the figures"
        assert any(text.startswith("Model: not chosen") for text in labels)
        assert window.resources.browser.isVisible()
        assert not window.chat.warmup.requested, "the model library waits for the user to type"
        window.composer.editor.insertPlainText("H")
        assert window.chat.warmup.requested
        window.close()
        assert not running.done(), "the first close must wait for the servers"
        await asyncio.wait_for(running, QUIT_DEADLINE_S)
        assert host.connection("fixture").status.state is ServerState.STOPPED
        assert not window.isVisible()

    run_in_qt(qapp, scenario())
    assert live_children() == []


def test_broken_config_keeps_the_file_and_starts_the_demo(qapp: QApplication, tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    broken = '{\n  "mcpServers": {\n    "x": {"command": 42}\n  }\n}\n'
    config.write_text(broken)
    notice = config_notice(ConfigStore(config))
    assert notice is not None and "line 3" in notice and "servers.json" in notice

    async def scenario() -> None:
        async with window_session(qapp, config) as window:
            boxes = [box for box in window.findChildren(QMessageBox) if box.isVisible()]  # not an earlier test's
            assert boxes and "line 3" in boxes[0].text()
            await _until(lambda: window.bridge.host.ready_count() == 1, what="the demo server ready")
            assert list(window.bridge.host.connections) == ["demo"]
            for box in boxes:
                box.close()

    run_in_qt(qapp, scenario())
    assert config.read_text() == broken


@pytest.mark.stdio
def test_quitting_with_ten_servers_and_a_large_listing_in_flight_stops_them_all(
    qapp: QApplication, tmp_path: Path
) -> None:
    """That a stop does not wait for the listing is shown in tests/core/connection/test_faults.py."""
    servers: dict[str, object] = {
        f"fx{i}": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]} for i in range(9)
    }
    big_args = ["--pages", "10", "--per-page", "1000", "--slow-relist", "3600"]  # an hour a page
    servers["big"] = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT), *big_args], "protocol": "legacy"}
    hosts: list[ServerHost] = []

    async def steps(window: MainWindow) -> None:
        host = window.bridge.host
        hosts.append(host)
        await _until(lambda: host.ready_count() == 10, timeout=120, what="ten servers ready")
        assert len(host.catalog.servers["big"].resources) == 10_000
        big = host.connection("big")
        await big.call_tool("announce_change", {})
        await _until(lambda: any("slowly" in line for line in big.stderr), what="a 10,000-resource re-listing")
        # Leaving the steps closes the window at once, with the listing in flight.

    run_window_scenario(qapp, tmp_path, steps, servers=servers)
    [host] = hosts
    assert all(c.status.state is ServerState.STOPPED for c in host.connections.values())

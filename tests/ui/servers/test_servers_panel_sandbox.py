"""When the sandbox stops a server, the Servers panel names what it refused and allows exactly that on a click:
real bubblewrap, a real stdio server, the real proxy, real widgets and real clicks."""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from desktop_app.bridge import CoreBridge
from desktop_app.core.config_file import load_config
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.host import ServerHost
from desktop_app.core.sandbox.denials import Denial
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import open_transport
from desktop_app.ui.servers.servers_panel import ServersPanel
from tests.core.sandbox.conftest import PROBE_SCRIPT, Home, home  # noqa: F401  (the planted home fixture)
from tests.core.sandbox.web_server import LOOPBACK_OK, web_server
from tests.hosting import FAST_RESTARTS, eventually
from tests.window_kit import run_in_qt


def _panel(tmp_path: Path, config: ServerConfig) -> tuple[ServersPanel, ServerHost, Path]:
    """The panel over a host that starts `config`, saved in a servers.json (call on the running loop)."""
    path = tmp_path / "servers.json"
    store = ConfigStore(path)
    store.upsert(config)
    host = ServerHost(policy=FAST_RESTARTS, target_factory=lambda c, hooks: open_transport(c, hooks, reach=LOOPBACK_OK))
    bridge = CoreBridge(host, None, store)
    panel = ServersPanel(bridge)
    host.start(bridge.configured_servers())
    panel.resize(420, 640)
    panel.show()
    return panel, host, path


def _boxes(qapp: QApplication) -> list[QMessageBox]:
    return [w for w in qapp.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def _confirmation(qapp: QApplication, before: list[QMessageBox]) -> QMessageBox:
    """The one question the click opened (another test in this process may have left a box open)."""
    boxes = [box for box in _boxes(qapp) if box not in before]
    assert len(boxes) == 1, boxes
    return boxes[0]


async def _allow(qtbot: QtBot, qapp: QApplication, panel: ServersPanel, denial: Denial) -> str:
    """Wait for the offer, click Allow…, check the question, click Yes; the question as asked."""
    await eventually(
        lambda: panel.details.denial == denial, 30, f"the offer of {denial}", lambda: str(panel.details.denial)
    )
    assert panel.details.allow.isVisible()
    if shot := os.environ.get("SANDBOX_OFFER_PNG"):
        panel.grab().save(shot)
    before = _boxes(qapp)
    qtbot.mouseClick(panel.details.allow, Qt.MouseButton.LeftButton)
    box = _confirmation(qapp, before)
    assert not box.isModal() or box.windowModality() is not Qt.WindowModality.ApplicationModal
    asked = box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    return asked


def test_a_refused_write_is_allowed_with_one_click_and_the_server_starts(
    qapp: QApplication,
    qtbot: QtBot,
    tmp_path: Path,
    home: Home,  # noqa: F811
) -> None:
    drafts = home.root / "drafts"
    drafts.mkdir()
    target = drafts / "out.txt"
    base = home.config(sandboxed=True)
    config = ServerConfig(**{**base.__dict__, "args": (str(PROBE_SCRIPT), "--write-at-start", str(target))})

    async def scenario() -> None:
        panel, host, path = _panel(tmp_path, config)
        try:
            asked = await _allow(qtbot, qapp, panel, Denial("write", str(drafts)))
            assert asked.startswith(f"Allow writing to {drafts} for 'probe'?")
            assert "allowWrite" in asked
            texts = [entry.text for entry in host.connection("probe").log]
            assert f"sandbox refused writing to {drafts} (not in allowWrite)" in texts
            assert panel.details.refused.text() == f"The sandbox refused writing to {drafts} (not in allowWrite)."
            await eventually(lambda: host.connection("probe").status.state is ServerState.READY, 30, "restarted")
            saved = load_config(path).servers["probe"].sandbox
            assert saved is not None and saved.allow_write == (str(home.notes), str(drafts))
            assert saved.deny_read == base.sandbox.deny_read if base.sandbox else False
            assert target.read_text() == "written at start"
            await eventually(lambda: panel.details.denial_row.isHidden(), what="the offer gone once it works")
        finally:
            await host.stop_all()

    run_in_qt(qapp, scenario())


def test_a_refused_host_is_allowed_with_one_click_and_then_reached(
    qapp: QApplication,
    qtbot: QtBot,
    tmp_path: Path,
    home: Home,  # noqa: F811
) -> None:
    async def fetch(host: ServerHost, url: str) -> str:
        result = await host.connection("probe").call_tool("fetch", {"urls": [url]})
        report: dict[str, str] = json.loads(result.content[0].text)
        return report[url]

    async def scenario() -> None:
        panel, host, path = _panel(tmp_path, home.config(sandboxed=True, allowed_domains=("allowed.test",)))
        try:
            async with web_server(b"served") as port:
                url = f"http://other.test:{port}/"
                await eventually(lambda: host.connection("probe").status.state is ServerState.READY, 30, "ready")
                assert (await fetch(host, url)).startswith("denied: 403")
                asked = await _allow(qtbot, qapp, panel, Denial("host", "other.test"))
                assert asked.startswith("Allow connections to other.test for 'probe'?")
                texts = [entry.text for entry in host.connection("probe").log]
                refused = texts.index("sandbox refused a connection to other.test (not in allowedDomains)")
                assert texts[refused + 1].startswith("to allow it, add that host to allowedDomains")
                await eventually(lambda: load_config(path).servers["probe"].sandbox is not None, what="saved")
                saved = load_config(path).servers["probe"].sandbox
                assert saved is not None and saved.allowed_domains == ("allowed.test", "other.test")
                await eventually(
                    lambda: (
                        host.connection("probe").status.state is ServerState.READY
                        and host.connection("probe").config.sandbox == saved
                    ),
                    30,
                    "restarted with the host allowed",
                )
                assert (await fetch(host, url)).startswith("ok: 200 served")
        finally:
            await host.stop_all()

    run_in_qt(qapp, scenario())

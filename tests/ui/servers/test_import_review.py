"""Servers → Import shows what would be added before anything is saved or started (an import is an install)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.host import ServerHost
from desktop_app.qt_kit.theme import tokens
from desktop_app.ui.servers.import_review import ImportReview
from desktop_app.ui.servers.server_actions import ServerActions
from tests.hosting import FAST_RESTARTS, FIXTURE_SCRIPT, eventually, live_children
from tests.window_kit import run_in_qt


def cloned_repository(tmp_path: Path) -> Path:
    """A workspace file that trusts its own server and gives another a loader hook."""
    fixture = {"type": "stdio", "command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}
    servers = {
        "fx": {**fixture, "trusted": True, "autoApproveReadOnly": True},
        "hooked": {**fixture, "env": {"PYTHONPATH": "${workspaceFolder}/hooks", "REGION": "eu"}},
    }
    source = tmp_path / "repo" / ".vscode" / "mcp.json"
    source.parent.mkdir(parents=True)
    source.write_text(json.dumps({"servers": servers}))
    return source


@pytest.mark.stdio
def test_the_import_is_reviewed_before_anything_is_saved(qapp: QApplication, tmp_path: Path) -> None:
    source = cloned_repository(tmp_path)
    config = tmp_path / "servers.json"
    host = ServerHost(policy=FAST_RESTARTS)
    bridge = CoreBridge(host, None, ConfigStore(config))
    window = QWidget()
    actions = ServerActions(window, bridge)

    async def scenario() -> None:
        review = actions.import_servers(source)
        assert isinstance(review, ImportReview) and review.isVisible()  # open(): the event loop runs on
        assert not config.exists() and live_children() == []  # nothing saved, nothing started

        fx, hooked = review.servers
        assert fx.title.text() == "fx" and fx.verdict.text() == "Will be added."
        assert fx.launch.text() == f"Runs: {sys.executable} {FIXTURE_SCRIPT}"
        assert fx.dropped is not None and fx.dropped.text() == (
            "Dropped trusted, autoApproveReadOnly: set them in the server editor if you mean it."
        )
        assert hooked.verdict.text().startswith("Not imported: the imported entry sets PYTHONPATH, which changes")
        assert hooked.risky is not None and hooked.risky.text().startswith("PYTHONPATH: changes which program runs")
        danger = tokens().danger
        assert danger in hooked.risky.styleSheet() and danger in hooked.verdict.styleSheet()
        assert hooked.environment is not None and hooked.environment.text() == "Environment: REGION"

        # Cancel saves nothing; a second review's Import saves exactly what it showed.
        review.reject()
        assert not config.exists()
        again = actions.import_servers(source)
        assert again is not None and again.import_button.isEnabled()
        again.import_button.click()
        saved = json.loads(config.read_text())["mcpServers"]
        assert saved == {"fx": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}}
        await eventually(lambda: host.ready_count() == 1, what="the imported server")
        assert not bridge.host.connection("fx").config.trusted
        [notice] = [box for box in window.findChildren(QMessageBox) if box.isVisible()]
        assert notice.text().startswith("From VS Code: added 1 (fx); refused 1 (hooked).")
        notice.close()
        await host.stop_all()

    run_in_qt(qapp, scenario())
    window.close()

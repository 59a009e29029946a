"""Servers → Export…: the user's servers written for another client from the window, secrets as placeholders."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import FIXTURE_SCRIPT, eventually
from tests.window_kit import run_window_scenario


def test_servers_are_exported_through_the_menu(qapp: QApplication, tmp_path: Path) -> None:
    fx = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)], "env": {"FX_KEY": "${secret:FX_KEY}"}}
    target = tmp_path / "project" / ".vscode" / "mcp.json"
    target.parent.mkdir(parents=True)

    async def steps(window: MainWindow) -> None:
        assert window.menu_actions.export_servers.isEnabled()
        window.menu_actions.export_servers.trigger()  # Servers → Export…
        [dialog] = [d for d in window.findChildren(QFileDialog) if d.isVisible()]
        filters = dialog.nameFilters()
        assert [f.split(" (")[0] for f in filters] == [
            "VS Code",
            "Claude Code, Claude Desktop, Cursor, GitHub Copilot",
        ]
        dialog.selectNameFilter(filters[0])
        dialog.selectFile(str(target))
        dialog.accept()
        await eventually(lambda: target.exists(), what="the exported file")
        [notice] = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
        assert notice.text() == (
            f"Exported 1 server to {target}. Secrets are left as placeholders: FX_KEY."
            " Not exported (this app's own decisions): trusted."
        )
        notice.close()

    run_window_scenario(qapp, tmp_path, steps, servers={"fx": {**fx, "trusted": True}})
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    document = json.loads(target.read_text())
    assert document["servers"] == {"fx": {"type": "stdio", **fx, "env": {"FX_KEY": "${input:FX_KEY}"}}}
    assert [item["id"] for item in document["inputs"]] == ["FX_KEY"]

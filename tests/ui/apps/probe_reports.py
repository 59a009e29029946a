"""The app server's probe view in the whole window: where the server is, and what the view reported."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.ui.shell.main_window import MainWindow

APP_SERVER = Path(__file__).parents[2] / "servers" / "app_server.py"


def probe_reports(window: MainWindow) -> list[dict[str, object]]:
    prefix = "app log: [probe] "
    lines = [e.text for e in window.bridge.host.connection("apps").log if prefix in e.text]
    return [json.loads(line.split(prefix, 1)[1]) for line in lines]


def reported(window: MainWindow, step: str) -> dict[str, object] | None:
    return next((r for r in probe_reports(window) if r["step"] == step), None)

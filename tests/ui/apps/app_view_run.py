"""Running an app view scenario: a fresh harness environment (tests/ui/apps/harness.py) in Qt's event loop."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from tests.ui.apps.harness import Scenario, make_env
from tests.window_kit import run_in_qt


def run(qapp: QApplication, scenario: Scenario) -> None:
    async def main() -> None:
        env = await make_env()
        try:
            await scenario(env)
        finally:
            await env.close()

    quits = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)  # closing a view's window must not end the loop
    try:
        run_in_qt(qapp, main())
    finally:
        qapp.setQuitOnLastWindowClosed(quits)

"""The real window for the gallery's tests: the composition root with no servers of the user's (the
demo runs), a registry address in Settings, and a scenario played on the window."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_app.app import run_window
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.registry import DEFAULT_REGISTRY_URL
from desktop_app.ui.gallery.consent_card import ConsentCard
from desktop_app.ui.gallery.install_pane import InstallPane
from desktop_app.ui.main_window import MainWindow
from tests.hosting import eventually, live_children, main_window, run_in_qt

Scenario = Callable[[MainWindow], Awaitable[None]]
until = functools.partial(eventually, timeout=20.0)


def run_desk(
    qapp: QApplication, tmp_path: Path, scenario: Scenario, *, registry_url: str = DEFAULT_REGISTRY_URL
) -> Path:
    """Play `scenario` once the demo server is ready; returns the `servers.json` it leaves behind."""
    config = tmp_path / "servers.json"
    config.write_text('{"mcpServers": {}}\n')
    settings_path = tmp_path / "settings.json"
    save_settings(settings_path, AppSettings(registry_url=registry_url))

    async def main() -> None:
        running = asyncio.ensure_future(run_window(qapp, config, settings_path))
        window = await main_window(qapp)
        await until(lambda: window.bridge.host.ready_count() >= 1, what="the demo server")
        try:
            await scenario(window)
        finally:
            window.close()
            await asyncio.wait_for(running, 10)

    run_in_qt(qapp, main())
    assert live_children() == []
    return config


def consent(pane: InstallPane) -> ConsentCard | None:
    """The pane's open consent card, if one is waiting for an answer."""
    return next((card for card in pane.findChildren(ConsentCard) if card.open), None)

"""The real window for the gallery's tests: the composition root with no servers of the user's (the
demo runs), a registry address in Settings, and a scenario played on the window."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.registry import DEFAULT_REGISTRY_URL
from desktop_app.ui.gallery.consent_card import ConsentCard
from desktop_app.ui.gallery.install_pane import InstallPane
from desktop_app.ui.main_window import MainWindow
from tests.hosting import eventually
from tests.window_kit import run_window_scenario

Scenario = Callable[[MainWindow], Awaitable[None]]
until = functools.partial(eventually, timeout=20.0)


def run_desk(
    qapp: QApplication, tmp_path: Path, scenario: Scenario, *, registry_url: str = DEFAULT_REGISTRY_URL
) -> Path:
    """Play `scenario` once the demo server is ready; returns the `servers.json` it leaves behind."""
    settings = AppSettings(registry_url=registry_url)
    return run_window_scenario(qapp, tmp_path, scenario, servers={}, settings=settings, ready=1)


def consent(pane: InstallPane) -> ConsentCard | None:
    """The pane's open consent card, if one is waiting for an answer."""
    return next((card for card in pane.findChildren(ConsentCard) if card.open), None)

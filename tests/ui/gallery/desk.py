"""The real window for the gallery's tests: the composition root with no servers of the user's (the
demo runs), a registry address in Settings, and a scenario played on the window."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.registry import DEFAULT_REGISTRY_URL
from desktop_app.ui.gallery.consent_card import ConsentCard
from desktop_app.ui.gallery.install_pane import InstallPane
from desktop_app.ui.shell.main_window import MainWindow
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


def message_boxes(qapp: QApplication) -> list[QMessageBox]:
    return [widget for widget in qapp.topLevelWidgets() if isinstance(widget, QMessageBox)]


@contextlib.contextmanager
def no_box_left(qapp: QApplication) -> Iterator[None]:
    """Fails the test when a message box opened inside, after closing and deleting every one, so none
    outlives the test (a box left alive breaks later tests in the same process)."""
    before = set(message_boxes(qapp))
    try:
        yield
    finally:
        left = [box for box in message_boxes(qapp) if box not in before]
        said = [box.text() for box in left]
        for box in left:
            box.close()
            box.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    assert said == [], said

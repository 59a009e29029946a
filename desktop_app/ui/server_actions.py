"""The Servers menu's commands that act on every server: importing other clients' configurations and
reconnecting all.

An import is an install: the file is read, its servers are shown in a review (`ImportReview`) and
only Import saves them, exactly as shown; nothing is written or started before.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_import import ImportReport, import_servers, known_sources
from desktop_app.ui.import_review import ImportReview
from desktop_app.ui.notice_box import show_notice


class ServerActions:
    def __init__(self, window: QWidget, bridge: CoreBridge) -> None:
        self._window = window
        self._bridge = bridge

    def fill_import_menu(self, menu: QMenu) -> None:
        """One entry per client MCP Desk knows (greyed when its file is missing), then any other file."""
        for source in known_sources():
            action = menu.addAction(f"{source.client} ({source.path})")
            action.setEnabled(source.exists)
            action.triggered.connect(lambda _=False, path=source.path: self.import_servers(path))
        menu.addAction("Other file…", self._import_other)
        menu.setEnabled(True)

    def import_servers(self, path: Path) -> ImportReview | None:
        """Read `path` and show what importing it would add; the review's Import saves it."""
        try:
            if self._bridge.store is None:
                raise ConfigError("no configuration file is in use")
            report = import_servers(self._bridge.store.servers, path)
        except ConfigError as exc:
            show_notice(self._window, f"Nothing was imported:\n\n{exc}")
            return None
        review = ImportReview(report, self._window)
        review.confirmed.connect(self._save)
        review.open()
        return review

    def _save(self, report: ImportReport) -> None:
        try:
            self._bridge.import_servers(report)
        except ConfigError as exc:
            show_notice(self._window, f"Nothing was imported:\n\n{exc}")
            return
        show_notice(self._window, report.summary, icon=QMessageBox.Icon.Information)

    def _import_other(self) -> None:
        dialog = QFileDialog(
            self._window, "Import servers from", str(Path.home()), "JSON files (*.json);;All files (*)"
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self.import_servers(Path(path)))
        dialog.open()

    def reconnect_all(self) -> None:
        for name in self._bridge.host.connections:
            self._bridge.restart_server(name)

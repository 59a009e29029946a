"""The Servers menu's commands that act on every server: importing other clients' configurations,
exporting the user's for them, and reconnecting all.

An import is an install: the file is read, its servers are shown in a review (`ImportReview`) and
only Import saves them, exactly as shown; nothing is written or started before. An export is written
from the configuration alone (`core/config_export`): secrets stay placeholders, trust keys stay here.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_export import EXPORT_FORMATS, ExportFormat, export_servers
from desktop_app.core.config_import import ImportReport, import_servers, known_sources
from desktop_app.ui.servers.import_review import ImportReview
from desktop_app.ui.widgets.notice_box import show_notice


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

    def export_servers(self) -> QFileDialog:
        """Ask where to write the user's servers and in which client's shape; `export_to` writes them."""
        dialog = QFileDialog(self._window, "Export servers to", str(Path.home() / ".mcp.json"))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)  # it confirms replacing an existing file
        filters = {f"{words} (*.json)": kind for kind, words in EXPORT_FORMATS.items()}
        dialog.setNameFilters(list(filters))
        dialog.selectNameFilter(next(iter(filters)))
        dialog.fileSelected.connect(lambda path: self.export_to(Path(path), filters[dialog.selectedNameFilter()]))
        dialog.open()
        return dialog

    def export_to(self, path: Path, export_format: ExportFormat) -> None:
        """Write the servers to `path` (0600) and say what was left as placeholders or left out."""
        store = self._bridge.store
        try:
            if store is None or store.error is not None:
                raise ConfigError("the server configuration could not be read" if store else "none is in use")
            export = export_servers(store.servers, export_format)
            atomic_write(path, export.text)
        except (ConfigError, OSError) as exc:
            show_notice(self._window, f"Nothing was exported:\n\n{exc}")
            return
        count = len(store.servers)
        text = f"Exported {count} server{'' if count == 1 else 's'} to {path}. Secrets are left as placeholders"
        text += f": {', '.join(export.secrets)}." if export.secrets else "."
        if export.withheld:
            text += f" Written into the configuration itself, exported as placeholders: {'; '.join(export.withheld)}."
        if export.left_out:
            text += f" Not exported (this app's own decisions): {', '.join(export.left_out)}."
        show_notice(self._window, text, icon=QMessageBox.Icon.Information)

    def reconnect_all(self) -> None:
        for name in self._bridge.host.connections:
            self._bridge.restart_server(name)

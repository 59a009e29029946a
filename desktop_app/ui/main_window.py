"""The MCP Desk main window."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMessageBox

from desktop_app.core.server_status import ServerStatus
from desktop_app.ui.bridge import CoreBridge
from desktop_app.ui.catalog_overview import CatalogOverview
from desktop_app.ui.servers_panel import ServersPanel


class MainWindow(QMainWindow):
    """Servers on the left, what they offer in the middle; closing asks the app to shut down."""

    def __init__(self, bridge: CoreBridge, on_close: Callable[[], object]) -> None:
        super().__init__()
        self.bridge = bridge
        self._on_close = on_close
        self._closing = False
        self.setWindowTitle("MCP Desk")
        self.resize(1200, 760)

        self.servers_panel = ServersPanel(bridge)
        dock = QDockWidget("Servers", self)
        dock.setObjectName("serversDock")
        dock.setWidget(self.servers_panel)
        dock.setMinimumWidth(380)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        self.catalog = CatalogOverview(bridge)
        self.setCentralWidget(self.catalog)

        self._servers_label = QLabel()
        self._secrets_label = QLabel()
        self.statusBar().addWidget(self._servers_label)
        self.statusBar().addPermanentWidget(self._secrets_label)
        if bridge.secrets is not None:
            backend = bridge.secrets.backend
            self._secrets_label.setText(f"Secrets: {backend.label}")
        bridge.server_state_changed.connect(self._update_counts)
        bridge.task_failed.connect(lambda message: self.statusBar().showMessage(message, 8000))
        self._update_counts()
        settings = QSettings()
        if (geometry := settings.value("window/geometry")) is not None:
            self.restoreGeometry(geometry)
        if (state := settings.value("window/state")) is not None:
            self.restoreState(state)

    def show_notice(self, text: str) -> QMessageBox:
        """Show a problem (e.g. a broken config file) without blocking the event loop."""
        box = QMessageBox(QMessageBox.Icon.Warning, "MCP Desk", text, parent=self)
        box.setModal(False)
        box.show()
        return box

    def _update_counts(self, *_: str | ServerStatus) -> None:
        host = self.bridge.host
        self._servers_label.setText(f"Servers ready: {host.ready_count()}/{len(host.connections)}")

    def closeEvent(self, event: QCloseEvent) -> None:
        """First close: ignore it and let the app stop every server, then quit."""
        if self._closing:
            event.accept()
            return
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        event.ignore()
        self._closing = True
        self.statusBar().showMessage("Stopping servers…")
        self._on_close()

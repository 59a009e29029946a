"""The window for one `.mcpb` bundle opened or dropped: its manifest, its settings, the consent."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QVBoxLayout, QWidget

from desktop_app.ui.gallery.install_pane import InstallPane


class BundleDialog(QDialog):
    """Non-modal; closing it withdraws an open consent (nothing is installed)."""

    sig_closed = Signal()
    """The window closed."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("bundleDialog")
        self.setWindowTitle(title)
        self.resize(680, 640)
        self.pane = InstallPane()
        self.pane.clear("Reading the bundle…")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pane)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.sig_closed.emit()
        super().closeEvent(event)

    def done(self, result: int) -> None:
        self.sig_closed.emit()
        super().done(result)

"""The window for one `.mcpb` bundle opened or dropped: its manifest, its settings, the consent,
and a button that closes it: Close while nothing is installed, Done once the bundle is."""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox, QPushButton, QVBoxLayout, QWidget

from desktop_app.ui.gallery.frame import ClosingDialog
from desktop_app.ui.gallery.install_pane import InstallPane


class BundleDialog(ClosingDialog):
    """Non-modal; closing it withdraws an open consent (nothing is installed)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("bundleDialog")
        self.setWindowTitle(title)
        free = self.screen().availableGeometry()  # on a small screen, room for the title bar and borders
        self.resize(min(680, free.width() - 40), min(640, free.height() - 60))
        self.pane = InstallPane()
        self.pane.clear("Reading the bundle…")
        self.buttons = QDialogButtonBox()
        self.finish = QPushButton("Close")
        self.finish.setObjectName("bundleFinish")
        self.finish.setAutoDefault(False)
        self.buttons.addButton(self.finish, QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 12)
        layout.addWidget(self.pane, 1)
        bottom = QVBoxLayout()
        bottom.setContentsMargins(16, 0, 16, 0)
        bottom.addWidget(self.buttons)
        layout.addLayout(bottom)

    def installed(self, _name: str) -> None:
        """The bundle was installed: the window has nothing left to ask, and Done closes it."""
        self.finish.setText("Done")
        self.finish.setDefault(True)
        self.finish.setFocus()

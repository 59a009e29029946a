"""What the gallery shows when the registry gives no list and nothing is saved from an earlier visit:
which registry was asked and what went wrong, in plain words, a button to try again, and the ways
to add a server that need no registry (the window's own Add server…, Install bundle… and Import
from… entries, so they are greyed and explained here exactly as in the menu). Drawing only.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.theme import heading, muted

TEXT_WIDTH = 560


class ServerMenus(Protocol):
    """The window's ways to add a server (its Servers menu's entries)."""

    @property
    def add_server(self) -> QAction: ...

    @property
    def install_bundle(self) -> QAction: ...

    @property
    def import_from(self) -> QMenu: ...


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "." if text else ""


class WayButton(QPushButton):
    """A button that stands for one of the window's actions: its text, greying and tooltip follow the
    action's (a policy that switches bundles off greys both), and a click triggers it."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAutoDefault(False)
        self.action: QAction | None = None
        self.clicked.connect(self._trigger)

    def follow(self, action: QAction) -> None:
        self.action = action
        action.changed.connect(self._sync)  # a bound method: Qt drops it when this button goes
        self._sync()

    def _sync(self) -> None:
        if self.action is not None:
            self.setText(self.action.text())
            self.setEnabled(self.action.isEnabled())
            self.setToolTip(self.action.toolTip())

    def _trigger(self) -> None:
        if self.action is not None:
            self.action.trigger()


class UnreachableView(QWidget):
    """A heading, what happened, Try again, and the ways in that need no registry."""

    sig_retry = Signal()
    """The user asked to read the registry again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("galleryUnreachable")
        self.heading = heading(QLabel("The server registry could not be read"))
        self.what = QLabel()
        self.what.setObjectName("galleryUnreachableWhat")
        self.what.setTextFormat(Qt.TextFormat.PlainText)
        self.what.setWordWrap(True)
        self.what.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hint = QLabel()
        self.hint.setTextFormat(Qt.TextFormat.PlainText)
        self.hint.setWordWrap(True)
        muted(self.hint)
        self.retry = QPushButton("Try again")
        self.retry.setObjectName("galleryRetry")
        self.retry.setDefault(True)
        self.retry.clicked.connect(self._retry)

        self.ways = QWidget()
        ways = QVBoxLayout(self.ways)
        ways.setContentsMargins(0, 0, 0, 0)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        ways.addWidget(line)
        ways.addWidget(QLabel("You can add a server without the registry:"))
        self.add_server = WayButton("galleryAddServer")
        self.install_bundle = WayButton("galleryInstallBundle")
        self.import_from = QPushButton("Import from Claude, VS Code, Cursor…")
        self.import_from.setObjectName("galleryImport")
        self.import_from.setAutoDefault(False)
        self.import_from.setToolTip("Copy the servers another MCP client is set up with")
        self._import_menu: QMenu | None = None
        self.import_from.clicked.connect(self._show_import_menu)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_server)
        buttons.addWidget(self.install_bundle)
        buttons.addWidget(self.import_from)
        buttons.addStretch(1)
        ways.addLayout(buttons)
        self.ways.hide()

        retry_row = QHBoxLayout()
        retry_row.addWidget(self.retry)
        retry_row.addStretch(1)
        column = QWidget()
        column.setMaximumWidth(TEXT_WIDTH)
        inner = QVBoxLayout(column)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.setSpacing(10)
        inner.addWidget(self.heading)
        inner.addWidget(self.what)
        inner.addWidget(self.hint)
        inner.addLayout(retry_row)
        inner.addSpacing(12)
        inner.addWidget(self.ways)
        # Centred by stretches, not by alignment: an aligned widget gets its size hint, and wrapped text
        # needs the height that goes with its width.
        middle = QHBoxLayout()
        middle.addStretch(1)
        middle.addWidget(column, 12)
        middle.addStretch(1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 24, 24, 24)
        outer.addStretch(1)
        outer.addLayout(middle)
        outer.addStretch(2)

    def offer(self, menus: ServerMenus) -> None:
        """Point at the window's own entries: a click is the same as choosing them from the menu."""
        self.add_server.follow(menus.add_server)
        self.install_bundle.follow(menus.install_bundle)
        self._import_menu = menus.import_from
        self.ways.show()

    def show_failure(self, registry: str, error: str) -> None:
        """`error` is the registry client's one line (or why its address cannot be used)."""
        said = f"the registry at {registry} "
        if error.startswith(said):  # the client names the registry; it was named already
            error = f"it {error[len(said) :]}"
        self.what.setText(printable(f"MCP Desk asked {registry} for its servers. {_sentence(error)}"))
        self.hint.setText(
            "Nothing is saved from an earlier visit for this search. Check that this computer is online"
            " and the registry's address is right (Change… picks another registry)."
        )
        self.retry.setEnabled(True)
        self.retry.setText("Try again")

    def trying(self) -> None:
        """A retry is under way: the button says so until the answer comes."""
        self.retry.setEnabled(False)
        self.retry.setText("Trying again…")

    def _retry(self) -> None:
        self.trying()
        self.sig_retry.emit()

    def _show_import_menu(self) -> None:
        # popup() rather than exec(): the window's event loop keeps running while the menu is open.
        if self._import_menu is not None:
            self._import_menu.popup(self.import_from.mapToGlobal(QPoint(0, self.import_from.height())))

"""Sign in / Cancel buttons in the resource tree's server rows, for servers waiting on the user.

A server that needs sign-in lists nothing, so its row is where the user looks. While it waits,
its row spans the tree's width (the columns would leave no room) and carries its state and a
button at the right end, kept in step with filtering and state changes. The buttons only ask
the bridge; the sign-in itself is the core's (`core/auth`), and the Servers panel offers the same.

Why this lives in the browser, not in `desktop_app/ui` beside the other sign-in widgets: it is a
decoration of this tree. It places index widgets in the tree view, spans its rows, measures its
row font and icons, and follows the proxy's layout changes and the model's server roles: all the
browser's own parts. Placed from `desktop_app/ui`, it would reach into those parts from outside.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractProxyModel, QModelIndex, QObject, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QTreeView, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.server_status import ServerState
from desktop_app.qt_kit.theme import muted
from resources_ui.tree_model import NAME_COLUMN, SERVER_ROLE, ResourceTreeModel

_LABELS = {ServerState.NEEDS_SIGN_IN: "Sign in", ServerState.SIGNING_IN: "Cancel"}
_GAP = 6


class TreeSignInButtons(QObject):
    """Keeps one button per waiting server row of `view` (over `proxy` of `model`)."""

    def __init__(
        self, view: QTreeView, proxy: QAbstractProxyModel, model: ResourceTreeModel, bridge: CoreBridge
    ) -> None:
        super().__init__(view)
        self._view = view
        self._proxy = proxy
        self._model = model
        self._bridge = bridge
        self._pending = QTimer(self)
        self._pending.setSingleShot(True)
        self._pending.setInterval(0)
        self._pending.timeout.connect(self.sync)
        for signal in (proxy.rowsInserted, proxy.rowsRemoved, proxy.layoutChanged, proxy.modelReset):
            signal.connect(self._pending.start)
        bridge.server_state_changed.connect(self._pending.start)

    def button(self, server: str) -> QToolButton | None:
        """The button in `server`'s row, if it has one."""
        for row in range(self._proxy.rowCount()):
            if self._proxy.index(row, NAME_COLUMN).data(SERVER_ROLE) == server:
                holder = self._view.indexWidget(self._proxy.index(row, NAME_COLUMN))
                return holder.findChild(QToolButton) if holder is not None else None
        return None

    def sync(self) -> None:
        root = QModelIndex()
        for row in range(self._proxy.rowCount()):
            cell = self._proxy.index(row, NAME_COLUMN)
            name = cell.data(SERVER_ROLE)
            status = self._model.server_status(name) if isinstance(name, str) else None
            label = _LABELS.get(status.state) if status is not None else None
            holder = self._view.indexWidget(cell)
            current = holder.findChild(QToolButton) if holder is not None else None
            if label is None or status is None:
                if holder is not None:
                    self._view.setIndexWidget(cell, None)  # type: ignore[arg-type]  # None removes it
                    self._view.setFirstColumnSpanned(row, root, False)
            elif current is None or current.text() != label:
                self._view.setFirstColumnSpanned(row, root, True)
                self._view.setIndexWidget(cell, self._holder(label, str(name), status.state.value, cell))

    def _holder(self, label: str, server: str, state: str, cell: QModelIndex) -> QWidget:
        holder = QWidget()
        layout = QHBoxLayout(holder)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.setSpacing(8)
        # The row paints its state dot and name; the state and the button follow right after them.
        font = cell.data(Qt.ItemDataRole.FontRole)
        metrics = QFontMetrics(font if isinstance(font, QFont) else self._view.font())
        icon = self._view.iconSize().width() if self._view.iconSize().isValid() else 16
        layout.addSpacing(icon + metrics.horizontalAdvance(server) + 3 * _GAP)
        words = muted(QLabel(state))
        layout.addWidget(words)
        button = QToolButton()
        button.setText(label)
        button.setObjectName("signInButton")
        if label == "Sign in":
            button.setToolTip(f"Open {server}'s sign-in page in your browser")
            button.clicked.connect(lambda: self._bridge.sign_in(server))
        else:
            button.setToolTip("Stop waiting for the browser")
            button.clicked.connect(lambda: self._bridge.cancel_sign_in(server))
        layout.addWidget(button)
        layout.addStretch(1)
        return holder

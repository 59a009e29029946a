"""Small coloured status dots drawn in code, so states read at a glance in any theme."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

from desktop_app.core.server_status import ServerState
from desktop_app.qt_kit.colours import MUTED_COLOUR

STATE_COLOURS = {
    ServerState.READY: "#2e9e5b",
    ServerState.STARTING: "#d9a21b",
    ServerState.RESTARTING: "#e07b1f",
    ServerState.FAILED: "#d64545",
    ServerState.STOPPED: MUTED_COLOUR,
    ServerState.DISABLED: "#b5b9c0",
    ServerState.NEEDS_SIGN_IN: "#4f6cf7",
    ServerState.SIGNING_IN: "#8fa2f9",
}

"""The dots' colours: bright marks that read on light and dark alike (an icon, not text)."""

STATE_TOKENS = {
    ServerState.READY: "success",
    ServerState.STARTING: "caution",
    ServerState.RESTARTING: "caution",
    ServerState.FAILED: "danger",
    ServerState.STOPPED: "muted",
    ServerState.DISABLED: "muted",
    ServerState.NEEDS_SIGN_IN: "accent",
    ServerState.SIGNING_IN: "accent",
}
"""The token a state's written badge takes (text: the theme's own colour, readable on its surface)."""


@cache
def state_icon(state: ServerState, size: int = 12) -> QIcon:
    pixmap = QPixmap(size * 2, size * 2)
    pixmap.setDevicePixelRatio(2.0)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(STATE_COLOURS[state]))
    painter.drawEllipse(1, 1, size - 2, size - 2)
    painter.end()
    return QIcon(pixmap)

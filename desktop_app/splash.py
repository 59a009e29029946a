"""The start-up splash: on screen within a bare Qt window's time, while the rest of the app loads.

Only PySide6 is imported here; everything heavy (the MCP SDK, PyMuPDF, the window itself) is
imported after the splash is painted, so the user sees MCP Desk respond at once.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication, QLabel, QWidget

WIDTH, HEIGHT = 460, 240


def _icon_path() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)
    root = Path(bundle) if bundle is not None else Path(__file__).resolve().parents[1]
    return root / "icons" / "mcp-desk.svg"


def splash_pixmap(ratio: float = 1.0) -> QPixmap:
    pixmap = QPixmap(int(WIDTH * ratio), int(HEIGHT * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(QColor("#1f2554"))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer = QSvgRenderer(str(_icon_path()))
    if renderer.isValid():
        renderer.render(painter, QRectF(32, 56, 128, 128))
    painter.setPen(QColor("#ffffff"))
    title = QFont()
    title.setPointSize(22)
    title.setBold(True)
    painter.setFont(title)
    painter.drawText(QRectF(184, 80, 260, 40), Qt.AlignmentFlag.AlignLeft, "MCP Desk")
    body = QFont()
    body.setPointSize(10)
    painter.setFont(body)
    painter.setPen(QColor("#c9cff7"))
    painter.drawText(QRectF(186, 128, 260, 60), Qt.AlignmentFlag.AlignLeft, "Starting…")
    painter.end()
    return pixmap


class Splash(QLabel):
    """A frameless picture in the middle of the screen, closed once the main window is up.

    (QSplashScreen.show() waits up to a second for the window system to confirm exposure,
    which is exactly the delay a splash is there to hide.)
    """

    def __init__(self, pixmap: QPixmap) -> None:
        super().__init__()
        self.setWindowFlags(Qt.WindowType.SplashScreen | Qt.WindowType.FramelessWindowHint)
        self.setPixmap(pixmap)
        self.setFixedSize(WIDTH, HEIGHT)
        screen = QGuiApplication.primaryScreen()
        if screen is not None:
            self.move(screen.availableGeometry().center() - self.rect().center())

    def finish(self, window: QWidget) -> None:
        self.close()
        window.raise_()
        window.activateWindow()


def show_splash(app: QApplication) -> Splash:
    """Show and paint the splash now; `finish(window)` closes it once the window is up."""
    screen = QGuiApplication.primaryScreen()
    splash = Splash(splash_pixmap(screen.devicePixelRatio() if screen is not None else 1.0))
    splash.show()
    app.processEvents()
    return splash

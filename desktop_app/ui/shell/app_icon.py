"""The application icon, found beside the sources or inside a frozen bundle."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

from PySide6.QtCore import QSize
from PySide6.QtGui import QIcon

DRAWN_SIZES: Final = (16, 24, 32, 48, 64, 128, 256)
"""Sizes `icons/render.py` draws ahead: crisper than the master scaled down to a title bar's 16 px."""


def icons_dir() -> Path:
    """`icons/` of the source tree, or the copy PyInstaller unpacks next to the executable."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "icons"
    return Path(__file__).resolve().parents[3] / "icons"


def app_icon() -> QIcon:
    """The drawn sizes where they were made (title bar, task switcher), the SVG master for every other
    size the platform asks for; an empty icon if neither is there."""
    folder = icons_dir()
    icon = QIcon()
    for size in DRAWN_SIZES:
        if (drawn := folder / "build" / f"mcp-desk-{size}.png").exists():
            icon.addFile(str(drawn), QSize(size, size))
    if (master := folder / "mcp-desk.svg").exists():
        icon.addFile(str(master))
    return icon

"""The application icon, found beside the sources or inside a frozen bundle."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtGui import QIcon


def icons_dir() -> Path:
    """`icons/` of the source tree, or the copy PyInstaller unpacks next to the executable."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "icons"
    return Path(__file__).resolve().parents[2] / "icons"


def app_icon() -> QIcon:
    """The SVG master scales to every size the platform asks for; an empty icon if it is missing."""
    master = icons_dir() / "mcp-desk.svg"
    return QIcon(str(master)) if master.exists() else QIcon()

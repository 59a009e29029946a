"""The icon renderer produces every size from the SVG master, and the app finds its icon."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from PySide6.QtGui import QImage, QImageReader
from PySide6.QtWidgets import QApplication

from desktop_app.ui.shell.app_icon import app_icon

RENDER = Path(__file__).resolve().parents[1] / "icons" / "render.py"


def test_render_writes_every_size(qapp: QApplication, tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("icon_render", RENDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = module.main(tmp_path)
    names = {p.name for p in written}
    assert {"mcp-desk-16.png", "mcp-desk-512.png", "mcp-desk.ico", "mcp-desk.icns"} <= names
    image = QImage(str(tmp_path / "mcp-desk-128.png"))
    assert (image.width(), image.height()) == (128, 128)
    # The corner is transparent, the middle is not: the SVG really rendered.
    assert image.pixelColor(0, 0).alpha() == 0
    assert image.pixelColor(64, 64).alpha() == 255
    # Qt reads back every size of the multi-size Windows and macOS icons.
    for name, count in (("mcp-desk.ico", 7), ("mcp-desk.icns", 7)):
        reader = QImageReader(str(tmp_path / name))
        assert reader.imageCount() == count, name
        assert not reader.read().isNull()


def test_app_icon_is_found(qapp: QApplication) -> None:
    assert not app_icon().isNull()

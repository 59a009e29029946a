"""Render the app icon from its SVG master: PNGs 16–512, a Windows .ico and a macOS .icns.

Run `python icons/render.py` after changing `mcp-desk.svg`; outputs go to `icons/build/`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
MASTER = HERE / "mcp-desk.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(size: int, renderer: QSvgRenderer) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def main(out: Path = HERE / "build") -> list[Path]:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(MASTER))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {MASTER}")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for size in SIZES:
        path = out / f"mcp-desk-{size}.png"
        if not render(size, renderer).save(str(path)):
            raise SystemExit(f"cannot write {path}")
        written.append(path)
    # Qt's image plugins write .ico (largest entry 256) and .icns from one image each.
    for name, size in (("mcp-desk.ico", 256), ("mcp-desk.icns", 512)):
        path = out / name
        if not render(size, renderer).save(str(path)):
            raise SystemExit(f"cannot write {path}")
        written.append(path)
    del app
    return written


if __name__ == "__main__":
    for path in main():
        print(path.relative_to(HERE.parent))

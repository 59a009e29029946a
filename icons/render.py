"""Render the app icon from its SVG master: PNGs 16–512, a multi-size Windows .ico and macOS .icns.

Run `python icons/render.py` after changing `mcp-desk.svg`; outputs go to `icons/build/`.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
MASTER = HERE / "mcp-desk.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# PNG-carrying icns entry types by pixel size (Apple's "icp4"… "ic10").
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09", 1024: b"ic10"}


def render(size: int, renderer: QSvgRenderer) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def png_bytes(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(buffer.data().data())


def ico(pngs: dict[int, bytes]) -> bytes:
    """A Windows icon holding every size as PNG (Vista and later read PNG entries)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = 6 + 16 * len(pngs)
    directory, data = b"", b""
    for size, png in sorted(pngs.items()):
        side = 0 if size >= 256 else size  # 0 means 256 in the directory
        directory += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset + len(data))
        data += png
    return header + directory + data


def icns(pngs: dict[int, bytes]) -> bytes:
    """A macOS icon family with a PNG entry per size Apple defines."""
    body = b"".join(ICNS_TYPES[size] + struct.pack(">I", len(png) + 8) + png for size, png in sorted(pngs.items()))
    return b"icns" + struct.pack(">I", len(body) + 8) + body


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
    ico_path, icns_path = out / "mcp-desk.ico", out / "mcp-desk.icns"
    ico_path.write_bytes(ico({size: png_bytes(render(size, renderer)) for size in ICO_SIZES}))
    icns_path.write_bytes(icns({size: png_bytes(render(size, renderer)) for size in ICNS_TYPES}))
    written += [ico_path, icns_path]
    del app
    return written


if __name__ == "__main__":
    for path in main():
        print(path.relative_to(HERE.parent))

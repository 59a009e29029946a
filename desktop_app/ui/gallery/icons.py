"""Server icons from untrusted bytes: PNG and JPEG decoded strictly, SVG only when it is inert.

An SVG can reference files and URLs or carry scripts; Qt's renderer runs no script, but to be sure
nothing is fetched or expanded, an SVG with any external reference, entity declaration, script or
foreign object is not drawn at all (the gallery shows a plain placeholder instead).
"""

from __future__ import annotations

import re
from typing import Final

from PySide6.QtCore import QByteArray, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

MAX_ICON_BYTES: Final = 512 * 1024
_UNSAFE_SVG: Final = re.compile(
    rb"<!DOCTYPE|<!ENTITY|<script|<foreignObject|\bon[a-z]+\s*=|javascript:|@import|url\(\s*['\"]?(?!#)",
    re.IGNORECASE,
)
_HREF: Final = re.compile(rb"""(?:xlink:)?href\s*=\s*["']([^"']*)["']""", re.IGNORECASE)


def is_inert_svg(data: bytes) -> bool:
    """No scripts, entities or references outside the document (only `#fragment` links)."""
    if _UNSAFE_SVG.search(data):
        return False
    return all(ref.startswith(b"#") for ref in _HREF.findall(data))


def _looks_like(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    head = data[:512].lstrip().lower()
    if head.startswith((b"<svg", b"<?xml")) and b"<svg" in data[:4096].lower():
        return "SVG"
    return None


def icon_image(data: bytes, side: int) -> QImage | None:
    """The icon scaled into a `side`-pixel square, or None when it is not a safe PNG, JPEG or SVG."""
    if not data or len(data) > MAX_ICON_BYTES:
        return None
    kind = _looks_like(data)
    if kind in ("PNG", "JPEG"):
        image = QImage()
        if not image.loadFromData(data, kind):
            return None
        return image.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
    if kind == "SVG" and is_inert_svg(data):
        renderer = QSvgRenderer(QByteArray(data))
        if not renderer.isValid():
            return None
        image = QImage(side, side, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
        renderer.render(painter)
        painter.end()
        return image
    return None


def placeholder_icon(text: str, side: int) -> QPixmap:
    """A calm rounded square with the server's initial, for servers without a usable icon."""
    pixmap = QPixmap(QSize(side, side))
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor("#8a94a6"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawRoundedRect(0, 0, side, side, side / 5, side / 5)
    font = painter.font()
    font.setPixelSize(int(side * 0.5))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, (text[:1] or "?").upper())
    painter.end()
    return pixmap


def to_icon(image: QImage | None, fallback_text: str, side: int) -> QIcon:
    return QIcon(QPixmap.fromImage(image) if image is not None else placeholder_icon(fallback_text, side))

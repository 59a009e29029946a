"""Small content-kind icons drawn in code, so the tree reads the same under every icon theme."""

from __future__ import annotations

from enum import Enum
from functools import cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPen, QPixmap

from desktop_app.core.content import base_mime, is_text_mime


class ContentKind(Enum):
    """What a resource holds, as far as its MIME type tells; decides the icon and the viewer."""

    TEXT = ("T", "#5b6b7f")
    CODE = ("<>", "#2f6fb3")
    MARKDOWN = ("M", "#2f6fb3")
    JSON = ("{}", "#b7791f")
    PDF = ("P", "#c53030")
    IMAGE = ("I", "#2f855a")
    BINARY = ("01", "#6b7280")
    TEMPLATE = ("{x}", "#7c3aed")

    @property
    def glyph(self) -> str:
        return self.value[0]

    @property
    def colour(self) -> str:
        return self.value[1]


_MARKDOWN = frozenset({"text/markdown", "text/x-markdown", "application/markdown", "application/x-markdown"})
_PLAIN = frozenset({"text/plain", "text/csv", "application/csv", "text/x-log"})


def kind_for(mime: str | None, uri: str = "") -> ContentKind:
    """Classify by declared MIME type, falling back to the URI's extension when there is none."""
    essence = base_mime(mime)
    path = uri.lower().rsplit("?", 1)[0]
    if essence in _MARKDOWN or (not essence and path.endswith((".md", ".markdown"))):
        return ContentKind.MARKDOWN
    if essence == "application/json" or essence.endswith("+json") or (not essence and path.endswith(".json")):
        return ContentKind.JSON
    if essence == "application/pdf" or (not essence and path.endswith(".pdf")):
        return ContentKind.PDF
    if essence.startswith("image/") and not essence.endswith("+xml"):
        return ContentKind.IMAGE
    if essence in _PLAIN or (not essence and path.endswith(".txt")):
        return ContentKind.TEXT
    if is_text_mime(mime):
        return ContentKind.CODE
    return ContentKind.TEXT if not essence else ContentKind.BINARY


@cache
def kind_icon(kind: ContentKind, size: int = 16) -> QIcon:
    """A rounded page with a one- to three-letter glyph in the kind's colour."""
    scale = 2
    pixmap = QPixmap(size * scale, size * scale)
    pixmap.setDevicePixelRatio(scale)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    colour = QColor(kind.colour)
    page = QRectF(1.5, 0.5, size - 3, size - 1)
    path = QPainterPath()
    path.addRoundedRect(page, 2.5, 2.5)
    painter.fillPath(path, colour.lighter(185))
    painter.setPen(QPen(colour, 1.0))
    painter.drawPath(path)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(6, int(size * (0.62 if len(kind.glyph) == 1 else 0.45))))
    painter.setFont(font)
    painter.setPen(colour.darker(130))
    painter.drawText(page, Qt.AlignmentFlag.AlignCenter, kind.glyph)
    painter.end()
    return QIcon(pixmap)

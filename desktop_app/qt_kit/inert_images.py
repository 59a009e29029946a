"""What a rich text view shows for an image a server's text refers to: a placeholder, never the file.

Qt reads an image a document names by itself when the view's `loadResource` gives nothing: a
local path, a `file:` URL, and on Windows a `//host/share` path that goes out to the network (a
beacon that the text was viewed, and the user's NTLM hash with it). Answering every request with
`inert_resource` (this placeholder for an image, nothing for the rest) leaves Qt nothing to look up.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QByteArray
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QTextDocument

from desktop_app.qt_kit.colours import MUTED_COLOUR


@cache
def blocked_image() -> QImage:
    """A small grey frame with a slash: "an image was here and was not loaded"."""
    image = QImage(16, 16, QImage.Format.Format_ARGB32)
    image.fill(QColor(0, 0, 0, 0))
    painter = QPainter(image)
    painter.setPen(QPen(QColor(MUTED_COLOUR), 1))
    painter.drawRect(0, 0, 15, 15)
    painter.drawLine(3, 12, 12, 3)
    painter.end()
    return image


def inert_resource(kind: int) -> QImage | QByteArray:
    """The answer for a `loadResource(kind, name)` call, whatever the name."""
    return blocked_image() if kind == QTextDocument.ResourceType.ImageResource.value else QByteArray()

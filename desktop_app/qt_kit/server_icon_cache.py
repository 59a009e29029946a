"""Servers' own icons as Qt icons: each distinct image decoded once, at the size it is drawn.

The bytes come checked from `core/server_icons` (inline, capped, typed by their magic, the header's
pixels within bounds); here they are decoded by the one format they are, never guessed, and
scaled while decoding, and an SVG is drawn by Qt's SVG renderer at the icon's size only. Icons
are kept by the digest of their bytes, so 10,000 resources sharing one icon decode it once. A
decode that fails is remembered as no icon (with one debug line): the row keeps the app's glyph.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Final

from mcp_types import Icon, Prompt
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, Qt
from PySide6.QtGui import QIcon, QImage, QImageReader, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QWidget

from desktop_app.core.catalog import Catalog, ServerCatalog
from desktop_app.core.server_icons import MAX_ICON_SIDE, ServerIcon, Theme, best_icon, server_icons, tool_icons
from desktop_app.qt_kit.theme import tokens

logger = logging.getLogger(__name__)

TREE_SIDE: Final = 20
"""A row of the resource tree."""
CARD_SIDE: Final = 32
"""The palette's rows and a tool card's header."""
_SCALE: Final = 2
"""Decoded at twice the side, so the icon stays crisp on a 200 % screen."""
_KEPT: Final = 512
_FORMATS: Final = {"image/png": b"png", "image/jpeg": b"jpeg", "image/webp": b"webp"}

_decoded: dict[tuple[str, int], QIcon | None] = {}


def item_icon(icons: Sequence[Icon] | None, side: int, widget: QWidget | None = None) -> QIcon | None:
    """The icon to draw for an item's `icons` in a `side`-pixel square (None: use the app's glyph)."""
    best = best_icon(server_icons(icons), side, theme_of(widget)) if icons else None
    return decoded(best, side) if best is not None else None


def tool_icon(catalog: Catalog, server: str, tool: str, widget: QWidget | None = None) -> QIcon | None:
    """A tool card's icon: the tool's own, else its server's (None: no icon of theirs)."""
    best = best_icon(tool_icons(catalog, server, tool), CARD_SIDE, theme_of(widget))
    if best is not None:
        return decoded(best, CARD_SIDE)
    snapshot = catalog.servers.get(server)
    info = snapshot.server_info if snapshot is not None else None
    return item_icon(info.icons if info is not None else None, CARD_SIDE, widget)


def prompt_icon(prompt: Prompt, widget: QWidget | None = None) -> QIcon | None:
    return item_icon(prompt.icons, CARD_SIDE, widget)


def theme_of(widget: QWidget | None) -> Theme:
    return "dark" if tokens(widget).dark else "light"


def decoded(icon: ServerIcon, side: int) -> QIcon | None:
    """`icon` decoded for a `side`-pixel square, once per image and size."""
    key = (icon.key, side)
    if key not in _decoded:
        if len(_decoded) >= _KEPT:
            _decoded.clear()
        image = _render_svg(icon.data, side * _SCALE) if icon.scalable else _decode(icon, side * _SCALE)
        if image is None or image.isNull():
            logger.debug("Server icon (%s) could not be decoded; the app's glyph is shown", icon.mime_type)
            _decoded[key] = None
        else:
            _decoded[key] = QIcon(QPixmap.fromImage(image))
    return _decoded[key]


def _decode(icon: ServerIcon, box: int) -> QImage | None:
    """Decoded as the format its magic says, scaled down while decoding; the header is asked again."""
    buffer = QBuffer()
    buffer.setData(QByteArray(icon.data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, _FORMATS[icon.mime_type])
    reader.setAutoDetectImageFormat(False)
    size = reader.size()
    if not 0 < size.width() <= MAX_ICON_SIDE or not 0 < size.height() <= MAX_ICON_SIDE:
        return None
    if max(size.width(), size.height()) > box:
        reader.setScaledSize(size.scaled(QSize(box, box), Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    buffer.close()
    return None if image.isNull() else image


def _render_svg(data: bytes, box: int) -> QImage | None:
    """Drawn by Qt's SVG renderer, which runs no script, into a `box`-pixel square only."""
    renderer = QSvgRenderer(QByteArray(data))
    if not renderer.isValid():
        return None
    renderer.setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
    image = QImage(box, box, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    return image


class RowIcons:
    """Which of a listing's rows have an icon of their own; each resolved when first drawn.

    Made once per listing from its items that list icons (none for most servers): a tree of
    10,000 rows checks and decodes nothing until a row is painted, and each image once.
    """

    def __init__(self, catalog: ServerCatalog | None = None) -> None:
        self._lists: dict[tuple[str, str], list[Icon]] = {}
        self._resolved: dict[tuple[str, str, Theme], QIcon | None] = {}
        if catalog is None:
            return
        info = catalog.server_info
        if info is not None and info.icons:
            self._lists[("server", "")] = info.icons
        self._lists.update({("resource", r.uri): r.icons for r in catalog.resources if r.icons})
        self._lists.update({("template", t.uri_template): t.icons for t in catalog.templates if t.icons})

    def server(self, widget: QWidget | None = None) -> QIcon | None:
        """The server's own icon (from its serverInfo), or None."""
        return self._resolve(("server", ""), widget)

    def entry(self, template: bool, uri: str, widget: QWidget | None = None) -> QIcon | None:
        """A resource's (or, `template`, a template's) own icon, or None."""
        return self._resolve(("template" if template else "resource", uri), widget)

    def _resolve(self, key: tuple[str, str], widget: QWidget | None) -> QIcon | None:
        icons = self._lists.get(key)
        if icons is None:
            return None
        theme = theme_of(widget)
        found = (*key, theme)
        if found not in self._resolved:
            self._resolved[found] = item_icon(icons, TREE_SIDE, widget)
        return self._resolved[found]

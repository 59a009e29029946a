"""Which viewer a resource's content calls for: by what it holds, then by its (possibly sniffed) type."""

from __future__ import annotations

from enum import Enum
from functools import cache

from PySide6.QtGui import QImageReader

from desktop_app.core.apps.document import is_app_mime
from desktop_app.core.content import ResourceContent
from desktop_app.qt_kit.icons import ContentKind, kind_for


class ViewerKind(Enum):
    EMPTY = "empty"
    LOADING = "loading"
    TEXT = "text"
    MARKDOWN = "markdown"
    PDF = "pdf"
    IMAGE = "image"
    BINARY = "binary"
    APP = "app"
    ERROR = "error"


@cache
def _decodable_images() -> frozenset[str]:
    return frozenset(bytes(m.data()).decode("ascii") for m in QImageReader.supportedMimeTypes())


def choose_viewer(content: ResourceContent) -> ViewerKind:
    """The viewer for one content item, by what it holds and then by its (possibly sniffed) type."""
    if content.error is not None:
        return ViewerKind.ERROR
    if is_app_mime(content.mime_type) and content.uri.startswith("ui://"):
        return ViewerKind.APP
    kind = kind_for(content.mime_type, content.uri)
    if content.text is not None:
        return ViewerKind.MARKDOWN if kind is ContentKind.MARKDOWN else ViewerKind.TEXT
    if kind is ContentKind.PDF:
        return ViewerKind.PDF
    if kind is ContentKind.IMAGE and content.mime_essence in _decodable_images():
        return ViewerKind.IMAGE
    return ViewerKind.BINARY

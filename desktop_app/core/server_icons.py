"""The spec's `icons` (of a server, tool, resource, template or prompt) made safe to draw.

Every icon is an image from the server, so from an attacker. Only inline `data:` images are
taken: a `file:` URL would show the user's own files, an `http:` one is a beacon, and an
`https:` one is not fetched here either (a remote server's https icons would need a fetch with
its own caps; until then they fall back like any other). What is taken is capped before it is
decoded: the encoded length, the number of icons per item, the declared type against the bytes'
magic, and the pixels the header claims (a 30000×30000 PNG in a few bytes is refused without a
decoder ever seeing it). An SVG is drawn only when it is self-contained (`svg_check`, and no
nested `data:` images either), and only by Qt's SVG renderer at the icon's size, which runs no
script. A refused icon falls back to the app's own glyph, with one debug line saying why.

Qt-free: the UI decodes the `ServerIcon` values this gives (`desktop_app/qt_kit/server_icon_cache.py`).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import unquote_to_bytes

from mcp_types import Icon

from desktop_app.core.catalog import Catalog
from desktop_app.core.content import image_dimensions
from desktop_app.core.image_limits import ImageTooLarge, check_decoded_size
from desktop_app.core.svg_check import svg_problem

logger = logging.getLogger(__name__)

Theme = Literal["light", "dark"]

MAX_ICON_BYTES: Final = 64 * 1024
"""An icon's decoded bytes; a larger one is no icon (and its text is not even decoded)."""
MAX_SRC_CHARS: Final = 4 * (MAX_ICON_BYTES // 3 + 1) + 256
"""The longest `src` looked at: the base64 of `MAX_ICON_BYTES` and a media type (an SVG written as
percent-encoded text gets as many characters). A longer one is refused unread and not remembered."""
MAX_ICONS_PER_ITEM: Final = 8
"""Icons looked at per item; the rest of a longer list is ignored unread."""
MAX_ICON_SIDE: Final = 1024
"""The largest side a raster icon's header may claim (the shared pixel limit is checked too)."""
SVG: Final = "image/svg+xml"
_MAGIC: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
)
_ALIASES: Final = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg"}
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,15}):")
_NESTED_DATA: Final = re.compile(rb"data\s*:", re.IGNORECASE)
_SCRIPTED: Final = re.compile(rb"<script|<foreignObject|\son[a-z]+\s*=|javascript:", re.IGNORECASE)


@dataclass(frozen=True)
class ServerIcon:
    """One icon that passed every check: its bytes, their (sniffed) type and what it fits."""

    data: bytes
    mime_type: str
    width: int
    """The header's width (0 for an SVG, which is drawn at any size)."""
    height: int
    theme: Theme | None
    """The theme it is drawn for (None: any)."""
    key: str
    """A digest of the bytes: the UI decodes each distinct icon once, however many items share it."""

    @property
    def scalable(self) -> bool:
        return self.mime_type == SVG


def server_icons(icons: Sequence[Icon] | None) -> tuple[ServerIcon, ...]:
    """The usable icons of an item, in the server's order; never raises, whatever the server sent."""
    if not icons:
        return ()
    if len(icons) > MAX_ICONS_PER_ITEM:
        logger.debug("Icons past the first %d of an item ignored (%d listed)", MAX_ICONS_PER_ITEM, len(icons))
    found = []
    for icon in icons[:MAX_ICONS_PER_ITEM]:
        if len(icon.src) > MAX_SRC_CHARS:
            logger.debug("Server icon not drawn: over %d KiB", MAX_ICON_BYTES // 1024)
            continue
        theme = icon.theme if icon.theme in ("light", "dark") else None
        checked = _checked(icon.src, icon.mime_type, theme)
        if checked is not None:
            found.append(checked)
    return tuple(found)


def best_icon(icons: Sequence[ServerIcon], side: int, theme: Theme | None = None) -> ServerIcon | None:
    """The icon to draw in a `side`-pixel square: the theme's own first, then one for any theme
    (one for the other theme last); among those, an SVG, else the smallest at least `side`
    pixels, else the largest."""

    def rank(icon: ServerIcon) -> tuple[int, int, int]:
        fit = 0 if icon.theme == theme else 1 if icon.theme is None else 2
        longest = max(icon.width, icon.height)
        if icon.scalable:
            return fit, 0, 0
        return (fit, 1, longest) if longest >= side else (fit, 2, -longest)

    return min(icons, key=rank, default=None)


def tool_icons(catalog: Catalog, server: str, tool: str) -> tuple[ServerIcon, ...]:
    """The usable icons of `server`'s tool named `tool` (its own name, not the model's)."""
    snapshot = catalog.servers.get(server)
    found = next((t for t in snapshot.tools if t.name == tool), None) if snapshot is not None else None
    return server_icons(found.icons) if found is not None else ()


def icon_problem(src: str, declared: str | None = None) -> str | None:
    """Why the icon at `src` (typed `declared` by the server) is not drawn, or None if it may be."""
    return _inspect(src, declared)[1]


@functools.lru_cache(maxsize=64)
def _checked(src: str, declared: str | None, theme: Theme | None) -> ServerIcon | None:
    """Remembered per icon (a few, as each may hold 150 KB): 10,000 resources sharing one are checked once."""
    icon, problem = _inspect(src, declared)
    if problem is not None:
        logger.debug("Server icon not drawn: %s", problem)
        return None
    assert icon is not None
    data, mime, width, height = icon
    return ServerIcon(data, mime, width, height, theme, hashlib.sha256(data).hexdigest())


def _inspect(src: str, declared: str | None) -> tuple[tuple[bytes, str, int, int] | None, str | None]:
    found = _SCHEME.match(src)
    scheme = found.group(1).lower() if found else ""
    if scheme != "data":
        where = "https icons are not fetched" if scheme == "https" else f"a {scheme or 'relative'} address"
        return None, f"only inline data: images are drawn ({where})"
    if len(src) > MAX_SRC_CHARS:
        return None, f"over {MAX_ICON_BYTES // 1024} KiB"
    head, comma, payload = src.partition(",")
    if not comma or len(head) > 256:
        return None, "a malformed data: address"
    params = [part.strip().lower() for part in head[5:].split(";")]
    is_base64 = params[-1] == "base64"
    data = _payload(payload, is_base64)
    if data is None:
        return None, "its data is not valid base64"
    if not data or len(data) > MAX_ICON_BYTES:
        return None, "empty" if not data else f"over {MAX_ICON_BYTES // 1024} KiB"
    mime = _sniff(data)
    if mime is None:
        return None, "not a PNG, JPEG, WebP or SVG image"
    for claimed in (params[0], (declared or "").strip().lower()):
        if claimed and _ALIASES.get(claimed, claimed) != mime:
            return None, f"it claims to be {claimed[:40]!r} but is {mime}"
    if mime == SVG:
        problem = svg_problem(data) or _svg_icon_problem(data)
        return (None, problem) if problem else ((data, mime, 0, 0), None)
    dims = image_dimensions(data)
    if dims is None:
        return None, f"its {mime} header cannot be read"
    width, height = dims
    try:
        check_decoded_size(width, height)
    except ImageTooLarge:
        return None, f"its header claims {width:,}×{height:,} pixels"
    if not 0 < width <= MAX_ICON_SIDE or not 0 < height <= MAX_ICON_SIDE:
        return None, f"its header claims {width:,}×{height:,} pixels"
    return (data, mime, width, height), None


def _svg_icon_problem(data: bytes) -> str | None:
    """Past `svg_check`: an icon needs no script (Qt would not run it) nor images of its own."""
    if _SCRIPTED.search(data):
        return "an SVG with a script or event handlers"
    return "it embeds other images" if _NESTED_DATA.search(data) else None


def _payload(payload: str, is_base64: bool) -> bytes | None:
    try:
        if is_base64:
            return base64.b64decode("".join(payload.split()), validate=True)
        return unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return None


def _sniff(data: bytes) -> str | None:
    """The image type the bytes are, by their magic: never by what the server says."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if len(data) >= 16 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    head = data[:4096].lstrip().lower()
    if head.startswith(b"<") and b"<svg" in head:
        return SVG
    return None

"""Whether an SVG from a server is safe to draw: everything it shows must be inside it.

Qt's SVG renderer runs no script, and refuses an entity bomb, but it draws an `<image>` from any
local path it is given: a server's SVG could show the user a file of theirs, stall the window on
a path like `/dev/stdin`, or (on Windows) reach the network through a `//host/share` path. So an
SVG is drawn only when every reference in it points inside the document (`#id`) or is inline
data (`data:`), it declares no entities, and it is written in an encoding this check can read
the way the XML parser will (UTF-8, ASCII or Latin-1). A compressed SVG (SVGZ) is checked once
unpacked, up to a size.

Qt-free: it reads the bytes only.
"""

from __future__ import annotations

import re
import zlib
from typing import Final

MAX_UNPACKED_BYTES: Final = 32 * 1024 * 1024
OUTSIDE: Final = "This SVG refers to files or addresses outside itself, so it is not drawn"

_ENCODING: Final = re.compile(rb"""<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
_READABLE_ENCODINGS: Final = frozenset({"utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin1", "latin-1"})
_ENTITY: Final = re.compile(rb"<!ENTITY", re.IGNORECASE)
_REFERENCE: Final = re.compile(rb"""(?:[\w.-]+:)?(?:href|src)\s*=\s*["']\s*([^"']*)["']""", re.IGNORECASE)
_CSS_URL: Final = re.compile(rb"""url\s*\(\s*["']?\s*([^"')\s]*)""", re.IGNORECASE)
_IMPORT: Final = re.compile(rb"@import", re.IGNORECASE)


def svg_problem(data: bytes, *, compressed: bool = False) -> str | None:
    """Why this SVG (gzip-compressed when `compressed`) must not be drawn, or None if it may."""
    if compressed:
        unpacked = _gunzip(data)
        if unpacked is None:
            return f"This compressed SVG unpacks to more than {MAX_UNPACKED_BYTES // 2**20} MB or is damaged"
        data = unpacked
    if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "This SVG is not written in UTF-8, so it cannot be checked and is not drawn"
    declared = _ENCODING.search(data[:1024])
    if declared is not None and declared.group(1).decode("ascii", "replace").lower() not in _READABLE_ENCODINGS:
        return "This SVG is not written in UTF-8, so it cannot be checked and is not drawn"
    if _ENTITY.search(data):
        return "This SVG declares XML entities, so it is not drawn"
    if _IMPORT.search(data):
        return OUTSIDE
    for target in (*_REFERENCE.findall(data), *_CSS_URL.findall(data)):
        if not _inside(target):
            return OUTSIDE
    return None


def _inside(target: bytes) -> bool:
    """A fragment of this document, or inline data; an empty reference points nowhere."""
    return not target or target.startswith(b"#") or target[:5].lower() == b"data:"


def _gunzip(data: bytes) -> bytes | None:
    """The unpacked bytes, or None when they would pass the limit or the stream is not one whole gzip member."""
    unpacker = zlib.decompressobj(wbits=31)
    try:
        unpacked = unpacker.decompress(data, MAX_UNPACKED_BYTES)
    except zlib.error:
        return None
    if unpacker.unconsumed_tail or unpacker.unused_data or not unpacker.eof:
        return None
    return unpacked

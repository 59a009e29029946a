"""Classify resource contents and describe them honestly to the model.

MCP servers label contents loosely: text arrives as base64 blobs, PDFs arrive as
`application/octet-stream`, and some blobs are not even valid base64. Everything the app
shows or sends to a model goes through `from_mcp`, so the rest of the app sees one shape
(`ResourceContent`) and the model never receives raw bytes or base64 it cannot read.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import struct
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from mcp_types import BlobResourceContents, TextResourceContents

__all__ = [
    "ResourceContent",
    "base_mime",
    "describe_for_model",
    "from_mcp",
    "human_size",
    "image_dimensions",
    "is_text_mime",
    "sniff_mime",
]

_TEXT_APPLICATION_TYPES: Final = frozenset(
    {
        "application/json",
        "application/ld+json",
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonlines",
        "application/json-seq",
        "application/xml",
        "application/xml-dtd",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/x-toml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/typescript",
        "application/x-typescript",
        "application/x-sh",
        "application/x-shellscript",
        "application/x-csh",
        "application/sql",
        "application/graphql",
        "application/x-httpd-php",
        "application/x-perl",
        "application/x-ruby",
        "application/x-python",
        "application/x-tex",
        "application/x-latex",
        "application/x-www-form-urlencoded",
        "application/csv",
        "application/markdown",
        "application/x-markdown",
        "application/x-sql",
        "application/x-subrip",
        "application/xhtml+xml",
    }
)
_TEXT_SUFFIXES: Final = ("+json", "+xml", "+yaml", "+toml", "+json-seq")

# Magic numbers for the formats the app can render; anything else stays octet-stream.
_PNG_MAGIC: Final = b"\x89PNG\r\n\x1a\n"
_GENERIC_BINARY: Final = "application/octet-stream"
_SNIFFABLE: Final = frozenset({"application/pdf", "image/png", "image/jpeg", "image/gif", "image/webp"})

_BINARY_NOTE: Final = "Not text; it is shown to the user in the app."


def base_mime(mime: str | None) -> str:
    """The lower-cased `type/subtype` without parameters, or "" when there is none."""
    if not mime:
        return ""
    return mime.split(";", 1)[0].strip().lower()


def _charset(mime: str | None) -> str | None:
    """The `charset=` parameter when it names a codec Python knows; unknown ones are ignored."""
    if not mime or ";" not in mime:
        return None
    for param in mime.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            name = value.strip().strip("\"'")
            try:
                return codecs.lookup(name).name
            except LookupError:
                return None
    return None


def is_text_mime(mime: str | None) -> bool:
    """Whether content of this MIME type is text a model can read.

    None or "" returns False: the type does not decide, so callers sniff the bytes.
    """
    essence = base_mime(mime)
    if not essence:
        return False
    if essence.startswith("text/"):
        return True
    return essence in _TEXT_APPLICATION_TYPES or essence.endswith(_TEXT_SUFFIXES)


def sniff_mime(data: bytes) -> str | None:
    """The MIME type the leading magic bytes prove, for the binary formats the app renders."""
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data.startswith(_PNG_MAGIC):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    """Walk JPEG segments to the first start-of-frame marker, which carries the size."""
    pos = 2
    while pos + 9 <= len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # standalone markers carry no length
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        if length < 2:
            return None
        pos += 2 + length
    return None


def _webp_dimensions(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return width, height
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def image_dimensions(data: bytes) -> tuple[int, int] | None:
    """Width and height read from the image header alone, without decoding pixels.

    Cheap enough to run before rendering, so the viewer can refuse decompression bombs
    (a tiny file whose header claims 30000×30000) before a decoder allocates for them.
    """
    try:
        if data.startswith(_PNG_MAGIC) and len(data) >= 24 and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return width, height
        if data.startswith((b"GIF87a", b"GIF89a")) and len(data) >= 10:
            width, height = struct.unpack("<HH", data[6:10])
            return width, height
        if data.startswith(b"\xff\xd8\xff"):
            return _jpeg_dimensions(data)
        if len(data) >= 16 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
            return _webp_dimensions(data)
    except struct.error:
        return None
    return None


def human_size(n: int) -> str:
    """A short size for people and models: "512 B", "240.0 KB", "1.5 MB" (1 KB = 1024 B)."""
    if n < 0:
        raise ValueError(f"size cannot be negative: {n}")
    if n < 1024:
        return f"{n} B"
    value = float(n)
    units = ("KB", "MB", "GB", "TB", "PB")
    for index, unit in enumerate(units):
        value /= 1024
        # Roll over before rounding would print "1024.0 KB" instead of "1.0 MB".
        if round(value, 1) < 1024 or index == len(units) - 1:
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass(frozen=True)
class ResourceContent:
    """One item of a `resources/read` result, decoded and classified.

    Exactly one of `text`, `data` or `error` is set. `note` records anything the model or
    user should know about how the content was interpreted (replaced bytes, a declared
    type the bytes contradict).
    """

    uri: str
    mime_type: str | None
    text: str | None = None
    data: bytes | None = None
    error: str | None = None
    note: str | None = None

    @cached_property
    def size(self) -> int:
        """Bytes of the content: UTF-8 text length, or the decoded blob length."""
        if self.text is not None:
            return len(self.text.encode("utf-8", "surrogatepass"))
        if self.data is not None:
            return len(self.data)
        return 0

    @property
    def is_binary(self) -> bool:
        return self.error is None and self.text is None and self.data is not None

    @property
    def is_text(self) -> bool:
        return self.error is None and self.text is not None

    @property
    def mime_essence(self) -> str:
        """The lower-cased `type/subtype` for dispatching to a viewer."""
        return base_mime(self.mime_type)


def _decode_text_blob(uri: str, mime: str, data: bytes) -> ResourceContent:
    """Decode a blob whose declared type is text.

    Policy: a strict decode with the declared charset (UTF-8 by default) is the normal case.
    If that fails but the bytes hold no NUL, it is text with a few bad bytes (legacy
    encodings, truncated multibyte sequences): decode with U+FFFD replacement and say so in
    `note`, because a mostly-readable text beats no text. NUL bytes mean the label is wrong
    and the bytes are binary, so they stay binary rather than becoming replacement noise.
    """
    charset = _charset(mime) or "utf-8"
    codec = "utf-8-sig" if charset == "utf-8" else charset
    try:
        return ResourceContent(uri=uri, mime_type=mime, text=data.decode(codec))
    except UnicodeDecodeError:
        pass
    if b"\x00" in data:
        note = f"declared {base_mime(mime)}, but the bytes are binary, not {charset} text"
        return ResourceContent(uri=uri, mime_type=mime, data=data, note=note)
    text = data.decode(codec, errors="replace")
    bad = text.count("\ufffd")
    note = f"{bad} byte sequence(s) were not valid {charset} and were replaced with U+FFFD"
    return ResourceContent(uri=uri, mime_type=mime, text=text, note=note)


def _classify_blob(uri: str, mime: str | None, data: bytes) -> ResourceContent:
    essence = base_mime(mime)
    if is_text_mime(mime):
        assert mime is not None
        return _decode_text_blob(uri, mime, data)
    sniffed = sniff_mime(data)
    if not essence:
        if sniffed is not None:
            return ResourceContent(uri=uri, mime_type=sniffed, data=data)
        if b"\x00" not in data:
            try:
                return ResourceContent(uri=uri, mime_type="text/plain", text=data.decode("utf-8-sig"))
            except UnicodeDecodeError:
                pass
        return ResourceContent(uri=uri, mime_type=_GENERIC_BINARY, data=data)
    if essence == _GENERIC_BINARY and sniffed is not None:
        # MCPServer labels every untyped bytes resource octet-stream; the magic is better.
        return ResourceContent(uri=uri, mime_type=sniffed, data=data)
    if essence in _SNIFFABLE and sniffed != essence:
        found = f"; it looks like {sniffed}" if sniffed else ""
        note = f"the data does not look like {essence}{found}"
        return ResourceContent(uri=uri, mime_type=mime, data=data, note=note)
    return ResourceContent(uri=uri, mime_type=mime, data=data)


def from_mcp(contents: TextResourceContents | BlobResourceContents) -> ResourceContent:
    """Turn one wire item into a `ResourceContent`; never raises for bad server data."""
    uri = str(contents.uri)
    mime = contents.mime_type or None
    if isinstance(contents, TextResourceContents):
        return ResourceContent(uri=uri, mime_type=mime, text=contents.text)
    # Line breaks are tolerated (MIME-style wrapping is common); any other stray byte is not.
    blob = "".join(contents.blob.split())
    try:
        data = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError) as exc:
        return ResourceContent(uri=uri, mime_type=mime, error=f"the server sent invalid base64 data ({exc})")
    return _classify_blob(uri, mime, data)


def describe_for_model(content: ResourceContent) -> str:
    """What the model reads for a resource: the text, or an honest bracketed descriptor.

    Binary data is never inlined (neither raw nor base64): it would waste the context on
    noise the model cannot interpret, while the user sees the real thing in the viewer.
    """
    if content.error is not None:
        return f"[Unreadable resource {content.uri}: {content.error}]"
    if content.text is not None:
        if content.note:
            return f"[Note: {content.note}.]\n{content.text}"
        return content.text
    details = [content.mime_essence or _GENERIC_BINARY, human_size(content.size)]
    if content.data is not None and content.mime_essence.startswith("image/"):
        dims = image_dimensions(content.data)
        if dims is not None:
            details.append(f"{dims[0]}x{dims[1]} px")
    note = f" Note: {content.note}." if content.note else ""
    return f"[Binary resource: {', '.join(details)}. {_BINARY_NOTE}{note}]"

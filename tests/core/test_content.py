"""Content classification: what the app shows and what the model is told about a resource."""

from __future__ import annotations

import base64
import dataclasses
import struct

import pymupdf
import pytest
from mcp_types import BlobResourceContents, TextResourceContents

from desktop_app.core.content import (
    ResourceContent,
    base_mime,
    describe_for_model,
    from_mcp,
    human_size,
    image_dimensions,
    is_text_mime,
    sniff_mime,
)
from tests.servers.fixture_server import CORRUPT_PDF, huge_png_bytes, pdf_bytes, png_bytes

URI = "test://item"
BINARY_TAIL = "Not text; it is shown to the user in the app.]"


def blob(data: bytes, mime: str | None) -> BlobResourceContents:
    return BlobResourceContents(uri=URI, blob=base64.b64encode(data).decode("ascii"), mime_type=mime)


@pytest.mark.parametrize(
    "mime",
    [
        "text/plain",
        "text/markdown",
        "TEXT/HTML; charset=UTF-8",
        "text/csv",
        "application/json",
        "application/json; charset=utf-8",
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/javascript",
        "application/ecmascript",
        "application/x-sh",
        "application/sql",
        "application/graphql",
        "application/toml",
        "application/x-ndjson",
        "application/vnd.api+json",
        "application/atom+xml",
        "image/svg+xml",
        "application/openapi+yaml",
    ],
)
def test_text_mimes_are_text(mime: str) -> None:
    assert is_text_mime(mime)


@pytest.mark.parametrize(
    "mime",
    [None, "", "application/pdf", "image/png", "application/octet-stream", "application/zip", "audio/mpeg"],
)
def test_binary_or_missing_mimes_are_not_text(mime: str | None) -> None:
    assert not is_text_mime(mime)


def test_base_mime_drops_parameters_and_case() -> None:
    assert base_mime(" Application/PDF ; name=x.pdf") == "application/pdf"
    assert base_mime(None) == ""


def test_text_contents_stay_text_and_size_counts_utf8_bytes() -> None:
    content = from_mcp(TextResourceContents(uri=URI, text="héllo", mime_type="text/plain"))
    assert content.text == "héllo"
    assert content.size == 6
    assert content.is_text and not content.is_binary
    assert describe_for_model(content) == "héllo"


def test_text_contents_with_binary_mime_still_stay_text() -> None:
    content = from_mcp(TextResourceContents(uri=URI, text="<svg/>", mime_type="image/png"))
    assert content.text == "<svg/>"


def test_pdf_blob_is_binary_and_described_without_bytes() -> None:
    data = pdf_bytes()
    content = from_mcp(blob(data, "application/pdf"))
    assert content.is_binary
    assert content.data == data
    assert content.size == len(data)
    description = describe_for_model(content)
    assert description == f"[Binary resource: application/pdf, {human_size(len(data))}. {BINARY_TAIL}"
    assert base64.b64encode(data).decode()[:20] not in description


def test_descriptor_has_the_exact_documented_shape() -> None:
    content = ResourceContent(uri=URI, mime_type="application/pdf", data=b"%PDF-" + b"\0" * (240 * 1024 - 5))
    assert describe_for_model(content) == (
        "[Binary resource: application/pdf, 240.0 KB. Not text; it is shown to the user in the app.]"
    )


def test_invalid_base64_becomes_an_error_not_an_exception() -> None:
    content = from_mcp(BlobResourceContents(uri=URI, blob="not base64!!", mime_type="application/pdf"))
    assert content.error is not None and "base64" in content.error
    assert not content.is_binary and not content.is_text
    assert content.size == 0
    assert describe_for_model(content) == f"[Unreadable resource {URI}: {content.error}]"


def test_wrapped_base64_lines_are_accepted() -> None:
    data = bytes(range(256)) * 3
    wrapped = base64.encodebytes(data).decode("ascii")  # 76-column lines
    assert "\n" in wrapped.strip()
    content = from_mcp(BlobResourceContents(uri=URI, blob=wrapped, mime_type="application/octet-stream"))
    assert content.data == data


def test_text_mime_blob_decodes_to_text() -> None:
    content = from_mcp(blob(b'{"a": 1}', "application/json"))
    assert content.text == '{"a": 1}'
    assert content.mime_type == "application/json"
    assert describe_for_model(content) == '{"a": 1}'


def test_text_mime_blob_honours_declared_charset_and_strips_bom() -> None:
    assert from_mcp(blob("café".encode("latin-1"), "text/plain; charset=ISO-8859-1")).text == "café"
    assert from_mcp(blob(b"\xef\xbb\xbfhi", "text/plain")).text == "hi"


def test_invalid_utf8_text_is_replaced_and_noted() -> None:
    content = from_mcp(blob(b"caf\xe9 ok", "text/plain"))
    assert content.text == "caf\ufffd ok"
    assert content.note is not None and "U+FFFD" in content.note
    description = describe_for_model(content)
    assert description.startswith("[Note: ") and description.endswith("caf\ufffd ok")


def test_text_label_on_binary_bytes_stays_binary() -> None:
    data = b"\x00\xff\xfe\x00binary"
    content = from_mcp(blob(data, "text/plain"))
    assert content.is_binary and content.data == data
    assert content.note is not None and "binary" in content.note
    assert describe_for_model(content).startswith("[Binary resource: text/plain, 10 B.")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (pdf_bytes(), "application/pdf"),
        (png_bytes(), "image/png"),
        (b"\xff\xd8\xff\xe0rest", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00", "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
    ],
)
def test_blob_without_mime_is_sniffed(data: bytes, expected: str) -> None:
    assert sniff_mime(data) == expected
    content = from_mcp(blob(data, None))
    assert content.mime_type == expected
    assert content.is_binary


def test_blob_without_mime_utf8_is_text_and_other_bytes_are_octet_stream() -> None:
    text = from_mcp(blob("plain words ✓".encode(), None))
    assert text.mime_type == "text/plain" and text.text == "plain words ✓"
    with_nul = from_mcp(blob(b"abc\x00def", None))
    assert with_nul.mime_type == "application/octet-stream" and with_nul.is_binary
    invalid = from_mcp(blob(b"\xc3\x28\x80", None))
    assert invalid.mime_type == "application/octet-stream" and invalid.data == b"\xc3\x28\x80"
    empty = from_mcp(blob(b"", None))
    assert empty.text == "" and empty.size == 0


def test_octet_stream_is_refined_by_magic() -> None:
    content = from_mcp(blob(pdf_bytes(), "application/octet-stream"))
    assert content.mime_type == "application/pdf"


def test_declared_type_contradicted_by_bytes_is_noted() -> None:
    content = from_mcp(blob(CORRUPT_PDF, "application/pdf"))
    assert content.is_binary and content.mime_type == "application/pdf"
    assert content.note == "the data does not look like application/pdf"
    assert "Note: the data does not look like application/pdf." in describe_for_model(content)


def test_image_descriptor_includes_header_dimensions() -> None:
    content = from_mcp(blob(png_bytes(), "image/png"))
    description = describe_for_model(content)
    assert description.startswith("[Binary resource: image/png, ")
    assert ", 16x12 px. Not text;" in description


def test_header_dimensions_expose_a_decompression_bomb_cheaply() -> None:
    data = huge_png_bytes()
    assert len(data) < 10_000
    assert image_dimensions(data) == (30_000, 30_000)
    assert "30000x30000 px" in describe_for_model(from_mcp(blob(data, "image/png")))


def test_image_dimensions_for_jpeg_gif_webp_and_garbage() -> None:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 20, 10), False)
    assert image_dimensions(pix.tobytes("jpg")) == (20, 10)
    assert image_dimensions(b"GIF89a" + struct.pack("<HH", 7, 3)) == (7, 3)
    vp8x = b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x0a\x00\x00\x00" + b"\x00" * 4
    vp8x += (99).to_bytes(3, "little") + (49).to_bytes(3, "little")
    assert image_dimensions(vp8x) == (100, 50)
    assert image_dimensions(b"\x89PNG\r\n\x1a\n") is None
    assert image_dimensions(b"\xff\xd8\xff") is None
    assert image_dimensions(b"nothing") is None


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (0, "0 B"),
        (512, "512 B"),
        (1023, "1023 B"),
        (1024, "1.0 KB"),
        (240 * 1024, "240.0 KB"),
        (1536 * 1024, "1.5 MB"),
        (1024 * 1024 - 1, "1.0 MB"),
        (5 * 1024**3, "5.0 GB"),
    ],
)
def test_human_size(n: int, expected: str) -> None:
    assert human_size(n) == expected


def test_human_size_rejects_negative() -> None:
    with pytest.raises(ValueError, match="negative"):
        human_size(-1)


def test_resource_content_is_frozen() -> None:
    content = ResourceContent(uri=URI, mime_type="text/plain", text="x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        content.text = "y"  # type: ignore[misc]

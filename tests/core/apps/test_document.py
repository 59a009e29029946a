"""A view's document: only app HTML, decoded, of a sane size, with its CSP from the right place."""

from __future__ import annotations

import base64

import pytest
from mcp_types import BlobResourceContents, ReadResourceResult, Resource, TextResourceContents

from desktop_app.core.apps.document import MAX_DOCUMENT_BYTES, AppDocumentError, app_document, is_app_mime

MIME = "text/html;profile=mcp-app"
CSP_META = {"ui": {"csp": {"connectDomains": ["https://api.example"]}}}


def read(*contents: TextResourceContents | BlobResourceContents) -> ReadResourceResult:
    return ReadResourceResult(contents=list(contents))


@pytest.mark.parametrize(
    ("mime", "ok"),
    [
        ("text/html;profile=mcp-app", True),
        ("text/html; profile=mcp-app", True),
        ('TEXT/HTML; charset=utf-8; Profile="mcp-app"', True),
        ("text/html", False),
        ("text/plain;profile=mcp-app", False),
        (None, False),
    ],
)
def test_app_mime(mime: str | None, ok: bool) -> None:
    assert is_app_mime(mime) is ok


def test_text_document_with_its_own_csp() -> None:
    document = app_document(
        "s", "ui://s/v", read(TextResourceContents(uri="ui://s/v", mime_type=MIME, text="<p>hi", meta=CSP_META))
    )
    assert document.html == "<p>hi"
    assert "connect-src https://api.example" in document.csp


def test_listed_meta_is_the_fallback_and_content_meta_wins() -> None:
    listed = Resource(uri="ui://s/v", name="v", mime_type=MIME, meta=CSP_META)
    plain = read(TextResourceContents(uri="ui://s/v", mime_type=MIME, text="x"))
    assert app_document("s", "ui://s/v", plain, listed).meta.csp.connect == ("https://api.example",)
    own = read(TextResourceContents(uri="ui://s/v", mime_type=MIME, text="x", meta={"ui": {}}))
    assert app_document("s", "ui://s/v", own, listed).meta.csp.connect == ()


def test_blob_document_is_decoded_and_the_matching_item_chosen() -> None:
    blob = base64.b64encode("<p>café</p>".encode()).decode()
    result = read(
        TextResourceContents(uri="ui://s/other", mime_type="text/plain", text="no"),
        BlobResourceContents(uri="ui://s/v", mime_type=MIME, blob=blob),
    )
    assert app_document("s", "ui://s/v", result).html == "<p>café</p>"


def test_refusals_say_why() -> None:
    with pytest.raises(AppDocumentError, match="must be text/html;profile=mcp-app"):
        app_document("s", "ui://s/v", read(TextResourceContents(uri="ui://s/v", mime_type="text/html", text="x")))
    with pytest.raises(AppDocumentError, match="not valid base64"):
        app_document("s", "ui://s/v", read(BlobResourceContents(uri="ui://s/v", mime_type=MIME, blob="@@@")))
    with pytest.raises(AppDocumentError, match="returned nothing"):
        app_document("s", "ui://s/v", read())
    huge = "x" * (MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(AppDocumentError, match=r"shows app documents of up to 5\.0 MB"):
        app_document("s", "ui://s/v", read(TextResourceContents(uri="ui://s/v", mime_type=MIME, text=huge)))

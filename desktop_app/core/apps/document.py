"""A view's HTML document from `resources/read`, checked before anything renders it."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Final

from mcp_types import BlobResourceContents, ReadResourceResult, Resource, TextResourceContents

from desktop_app.core.content import human_size
from desktop_app.core.extensions.apps_csp import build_csp
from desktop_app.core.extensions.apps_meta import UiResourceMeta, parse_resource_meta

MAX_DOCUMENT_BYTES: Final = 5 * 1024 * 1024
"""Larger documents are refused with a visible reason: a view is a page, not a payload."""


class AppDocumentError(ValueError):
    """The resource cannot be shown as an app; the message says why, in the user's words."""


@dataclass(frozen=True)
class AppDocument:
    """One `ui://` resource ready to serve: its HTML, where it came from, and its declarations."""

    server: str
    uri: str
    html: str
    meta: UiResourceMeta

    @property
    def csp(self) -> str:
        return build_csp(self.meta.csp)


def is_app_mime(mime_type: str | None) -> bool:
    """`text/html;profile=mcp-app`, tolerating case and spacing around the parameter."""
    if not mime_type:
        return False
    essence, _, params = mime_type.partition(";")
    if essence.strip().lower() != "text/html":
        return False
    pairs = (p.split("=", 1) for p in params.split(";") if "=" in p)
    return any(k.strip().lower() == "profile" and v.strip().strip('"').lower() == "mcp-app" for k, v in pairs)


def app_document(server: str, uri: str, result: ReadResourceResult, listed: Resource | None = None) -> AppDocument:
    """Pick the view's content out of a read result and check it (type, encoding, size).

    The CSP and permissions come from the content item's `_meta.ui`, with the `resources/list`
    entry as fallback, as the specification says hosts read them.
    """
    contents = list(result.contents)
    if not contents:
        raise AppDocumentError(f"{server} returned nothing for {uri}.")
    item = next((c for c in contents if c.uri == uri), contents[0])
    if not is_app_mime(item.mime_type):
        raise AppDocumentError(
            f"{uri} is {item.mime_type or 'of no stated type'}; an app must be text/html;profile=mcp-app."
        )
    if isinstance(item, TextResourceContents):
        size = len(item.text.encode("utf-8", "surrogatepass"))
        _check_size(uri, size)
        html = item.text
    else:
        assert isinstance(item, BlobResourceContents)
        _check_size(uri, len(item.blob) * 3 // 4)
        try:
            html = base64.b64decode(item.blob, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            raise AppDocumentError(f"{uri} is not valid base64-encoded UTF-8 HTML.") from None
    meta = parse_resource_meta(item.meta)
    if item.meta is None or "ui" not in item.meta:
        meta = parse_resource_meta(listed.meta if listed is not None else None)
    return AppDocument(server, uri, html, meta)


def _check_size(uri: str, size: int) -> None:
    if size > MAX_DOCUMENT_BYTES:
        raise AppDocumentError(
            f"{uri} is {human_size(size)}; MCP Desk shows app documents of up to {human_size(MAX_DOCUMENT_BYTES)}."
        )


__all__ = ["MAX_DOCUMENT_BYTES", "AppDocument", "AppDocumentError", "UiResourceMeta", "app_document", "is_app_mime"]

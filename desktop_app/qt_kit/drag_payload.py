"""The drag-and-drop payload for resources: what the browser produces and the composer accepts.

Besides the app's own JSON type, every payload carries `text/uri-list` and plain text, so other
applications (a text editor, a terminal) receive the URIs when a resource is dropped on them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Final

from PySide6.QtCore import QMimeData, QUrl

from desktop_app.core.resource_ref import ResourceRef

RESOURCES_MIME: Final = "application/x-mcp-desk-resources+json"
URI_LIST_MIME: Final = "text/uri-list"
_VERSION: Final = 1


def encode_resources(refs: Iterable[ResourceRef]) -> QMimeData:
    """A drag payload for `refs`: the app's JSON type plus `text/uri-list` and plain text."""
    items = list(dict.fromkeys(refs))
    mime = QMimeData()
    payload = {"version": _VERSION, "resources": [ref.to_json() for ref in items]}
    mime.setData(RESOURCES_MIME, json.dumps(payload).encode("utf-8"))
    mime.setUrls([QUrl(ref.uri) for ref in items])
    mime.setText("\n".join(ref.uri for ref in items))
    return mime


def decode_resources(mime: QMimeData) -> list[ResourceRef]:
    """The resources in a drop, or [] when it carries none of ours (or a damaged payload)."""
    if not mime.hasFormat(RESOURCES_MIME):
        return []
    raw = mime.data(RESOURCES_MIME).data()
    try:
        payload = json.loads(bytes(raw).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return []
    items = payload.get("resources") if isinstance(payload, dict) else None
    if not isinstance(items, list):
        return []
    refs = (ResourceRef.from_json(item) for item in items)
    return [ref for ref in refs if ref is not None]

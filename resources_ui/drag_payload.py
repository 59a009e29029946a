"""The drag-and-drop payload for resources: what the browser produces and the composer accepts.

Besides the app's own JSON type, every payload carries `text/uri-list` and plain text, so other
applications (a text editor, a terminal) receive the URIs when a resource is dropped on them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from PySide6.QtCore import QMimeData, QUrl

RESOURCES_MIME: Final = "application/x-mcp-desk-resources+json"
URI_LIST_MIME: Final = "text/uri-list"
_VERSION: Final = 1


@dataclass(frozen=True)
class ResourceRef:
    """A resource the user picked: enough to read it again from the right server and label it."""

    server: str
    uri: str
    name: str
    mime_type: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"server": self.server, "uri": self.uri, "name": self.name, "mimeType": self.mime_type}

    @classmethod
    def from_json(cls, item: object) -> ResourceRef | None:
        """The ref an item describes, or None when it lacks a server or URI (bad input is skipped)."""
        if not isinstance(item, dict):
            return None
        server, uri = item.get("server"), item.get("uri")
        if not isinstance(server, str) or not isinstance(uri, str) or not server or not uri:
            return None
        name = item.get("name")
        mime = item.get("mimeType")
        return cls(
            server, uri, name if isinstance(name, str) and name else uri, mime if isinstance(mime, str) else None
        )


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

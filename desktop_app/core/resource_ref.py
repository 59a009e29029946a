"""A resource's address as the user picked it: the server it came from and its URI, with its label.

Two servers may list one URI (two filesystem servers on overlapping folders, two instances of one
server): the URI alone does not say which to read. A picked resource keeps its server from the tree
through the drag, the composer and the message to the read (`chat/user_message.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResourceRef:
    """A resource the user picked: enough to read it again from the right server and label it.

    `server` is empty only where the user named a URI without a server (`mcp-desk run --attach URI`,
    a trace written before attachments kept theirs): it is then read from the one server listing it,
    and refused when several do."""

    server: str
    uri: str
    name: str = ""
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

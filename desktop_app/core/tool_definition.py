"""What a permission for a tool is pinned to: the tool's definition as the user saw it, and its digest.

A server can keep a tool's name and change everything else: what it says it does, what it
takes, what it claims about itself. The user's "always allow" rules and "this chat"
allowances therefore hold for one definition only, identified by `ToolDefinition.digest`
(the one place it is computed), and keep the definition itself so a change can be shown.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp_types import Tool


@dataclass(frozen=True)
class ToolDefinition:
    """The parts of a tool the user relies on when they allow it (its name is the rule's key)."""

    title: str | None = None
    """The name the user is shown: the tool's title, else its annotations' title."""
    description: str | None = None
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    annotations: Mapping[str, Any] = field(default_factory=dict)
    """The annotations as the server sent them (camelCase keys, unset ones left out)."""

    @classmethod
    def of(cls, tool: Tool) -> ToolDefinition:
        notes = tool.annotations
        title = tool.title or (notes.title if notes is not None else None)
        return cls(
            title=title,
            description=tool.description,
            input_schema=tool.input_schema if isinstance(tool.input_schema, dict) else {},
            annotations={} if notes is None else notes.model_dump(mode="json", by_alias=True, exclude_none=True),
        )

    @functools.cached_property
    def digest(self) -> str:
        """sha256 of the definition as canonical JSON (sorted keys, no spaces): equal definitions, equal digests."""
        canonical = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "description": self.description,
            "inputSchema": dict(self.input_schema),
            "annotations": dict(self.annotations),
        }

    @classmethod
    def from_json(cls, doc: object) -> ToolDefinition | None:
        """The definition saved by `to_json`, or None when `doc` is not one."""
        if not isinstance(doc, dict):
            return None
        title, description = doc.get("title"), doc.get("description")
        schema, annotations = doc.get("inputSchema"), doc.get("annotations")
        if not (title is None or isinstance(title, str)) or not (description is None or isinstance(description, str)):
            return None
        if not isinstance(schema, dict) or not isinstance(annotations, dict):
            return None
        return cls(title, description, schema, annotations)

"""How a tool changed since the user allowed it, in words the approval card and the terminal share.

Everything here is server text: it is shown, never interpreted, and characters that could
rewrite a terminal line or reorder text (control and format characters) are shown as escapes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from desktop_app.core.tool_definition import ToolDefinition

CHANGED_SINCE_ALLOWED: Final = "changed since you allowed it"
SCHEMA_TEXT_CHARS: Final = 160
"""An argument's description is cut here in the schema summary (the title and description are shown whole)."""

_ANNOTATION_NAMES: Final = {
    "title": "title",
    "readOnlyHint": "read-only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open world",
}


@dataclass(frozen=True)
class ToolChange:
    """What differs between the definition the user allowed and the tool's definition now."""

    parts: tuple[str, ...]
    """The parts that changed, in this order: "title", "description", "input schema", "annotations"."""
    title: tuple[str | None, str | None] | None = None
    """(before, after) when the title changed."""
    description: tuple[str | None, str | None] | None = None
    """(before, after) when the description changed."""
    schema: tuple[str, ...] = ()
    """What changed in the input schema, one short phrase each."""
    annotations: tuple[str, ...] = ()
    """What changed in the annotations, one short phrase each."""
    earlier_known: bool = True
    """False when only the allowed definition's digest was kept: what changed cannot be shown."""

    @classmethod
    def between(cls, before: ToolDefinition | None, after: ToolDefinition) -> ToolChange:
        if before is None:
            return cls(parts=(), earlier_known=False)
        parts: list[str] = []
        title = description = None
        if before.title != after.title:
            parts.append("title")
            title = (before.title, after.title)
        if before.description != after.description:
            parts.append("description")
            description = (before.description, after.description)
        schema: tuple[str, ...] = ()
        if before.input_schema != after.input_schema:
            parts.append("input schema")
            schema = tuple(schema_changes(before.input_schema, after.input_schema))
        annotations: tuple[str, ...] = ()
        if before.annotations != after.annotations:
            parts.append("annotations")
            annotations = tuple(annotation_changes(before.annotations, after.annotations))
        return cls(tuple(parts), title, description, schema, annotations)

    def summary(self) -> str:
        """The headline, e.g. "changed since you allowed it: description, annotations"."""
        return f"{CHANGED_SINCE_ALLOWED}: {', '.join(self.parts)}" if self.parts else CHANGED_SINCE_ALLOWED

    def lines(self) -> list[str]:
        """The change in plain text, one line per part (a long description may span lines)."""
        if not self.earlier_known:
            return ["Only a fingerprint of the definition you allowed was kept, so what changed cannot be shown."]
        lines: list[str] = []
        if self.title is not None:
            lines.append(f"Title: {_quoted(self.title[0])} → {_quoted(self.title[1])}")
        if self.description is not None:
            lines.append(f"Description was: {_text(self.description[0])}")
            lines.append(f"Description now: {_text(self.description[1])}")
        if self.schema:
            lines.append("Input schema: " + "; ".join(self.schema))
        if self.annotations:
            lines.append("Annotations: " + "; ".join(self.annotations))
        return [visible(line) for line in lines]


def schema_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The arguments added, removed, retyped or newly required, then any other keyword that changed."""
    was, now = _properties(before), _properties(after)
    was_required, now_required = _required(before), _required(after)
    changes = [
        f"new argument {_quoted(name)} ({_kind(now[name])}{', required' if name in now_required else ''})"
        for name in now
        if name not in was
    ]
    changes += [f"argument {_quoted(name)} removed" for name in was if name not in now]
    for name in (n for n in now if n in was):
        if was[name] != now[name]:
            changes.append(f"argument {_quoted(name)}: {_property_change(was[name], now[name])}")
        if (name in now_required) != (name in was_required):
            changes.append(f"{_quoted(name)} {'is now' if name in now_required else 'is no longer'} required")
    others = sorted(k for k in {*before, *after} - {"properties", "required"} if before.get(k) != after.get(k))
    if others:
        changes.append("other keywords changed: " + ", ".join(others))
    return changes or ["rewritten without changing its arguments"]


def annotation_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Each annotation that changed, e.g. "destructive: no → yes"."""
    keys = [k for k in _ANNOTATION_NAMES if k in before or k in after]
    keys += sorted(k for k in {*before, *after} if k not in _ANNOTATION_NAMES)
    return [
        f"{_ANNOTATION_NAMES.get(k, k)}: {_said(before.get(k))} → {_said(after.get(k))}"
        for k in keys
        if before.get(k) != after.get(k)
    ]


def visible(text: str) -> str:
    """`text` with control and format characters (escape sequences, bidi overrides) shown as \\u escapes."""
    return "".join(ch if ch.isprintable() or ch == "\n" else f"\\u{ord(ch):04x}" for ch in text)


def _properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return {str(k): v for k, v in properties.items()} if isinstance(properties, dict) else {}


def _required(schema: Mapping[str, Any]) -> set[str]:
    required = schema.get("required")
    return {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()


def _kind(prop: object) -> str:
    if not isinstance(prop, dict):
        return "any value"
    kind = prop.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list) and kind:
        return "/".join(str(k) for k in kind)
    return "one of several kinds" if "anyOf" in prop or "oneOf" in prop else "any value"


def _property_change(was: object, now: object) -> str:
    if not isinstance(was, dict) or not isinstance(now, dict):
        return f"now {_kind(now)}"
    said: list[str] = []
    if _kind(was) != _kind(now):
        said.append(f"type {_kind(was)} → {_kind(now)}")
    if was.get("description") != now.get("description"):
        said.append(f"description now {_quoted(_cut(now.get('description')))}")
    others = sorted(k for k in {*was, *now} - {"type", "description"} if was.get(k) != now.get(k))
    if others:
        said.append(", ".join(others) + " changed")
    return "; ".join(said)


def _cut(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return value if len(value) <= SCHEMA_TEXT_CHARS else value[: SCHEMA_TEXT_CHARS - 1] + "…"


def _said(value: object) -> str:
    if value is None:
        return "not said"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return _quoted(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _quoted(value: object) -> str:
    return "(none)" if value is None else f"“{value}”"


def _text(value: str | None) -> str:
    return "(none)" if value is None else value.replace("\n", "\n    ")

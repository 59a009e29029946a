"""The resource tree's rows as plain values: one `Entry` per resource, template or skill a server lists.

Built once per listing (`entries_of`) and flattened for the tree's hot paths: a server listing
10,000 resources builds 10,000 tuples, and every keystroke of the filter searches their case-folded
text. What a row says (its type, size and tooltip) is worded here too, so the Qt model only serves it.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Final, NamedTuple

from mcp_types import Resource, ResourceTemplate

from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.content import human_size
from desktop_app.core.extensions.skills import SkillEntry
from desktop_app.core.resource_ref import ResourceRef
from resources_ui.skill_rows import skill_tooltip, skill_type


class EntryKind(Enum):
    RESOURCE = "resource"
    TEMPLATE = "template"
    SKILL = "skill"


EntryKey = str
"""An entry's identity across listings: its kind's initial and its URI (strings hash fastest)."""
_KEY_PREFIX: Final = {kind: f"{kind.value[0]}:" for kind in EntryKind}


class Entry(NamedTuple):
    """One child row: a resource or a template, flattened for fast display and filtering (a
    tuple: a server listing 10,000 resources builds one per resource, and tuples build fastest)."""

    kind: EntryKind
    server: str
    uri: str
    """The resource URI, or the RFC 6570 template of a template."""
    name: str
    title: str | None
    mime_type: str | None
    size: int | None
    description: str | None
    key: EntryKey
    """Identity across listings; stored rather than computed so the filter makes no garbage per row."""
    folded_label: str
    folded_text: str
    """Label, name, URI and description case-folded once, so filtering is a plain string search."""
    skill: SkillEntry | None = None
    """The skill's entry, on a skill's row."""

    @property
    def label(self) -> str:
        return self.title or self.name

    @property
    def is_template(self) -> bool:
        return self.kind is EntryKind.TEMPLATE

    def ref(self) -> ResourceRef:
        return ResourceRef(self.server, self.uri, self.label, self.mime_type)


def make_entry(
    kind: EntryKind,
    server: str,
    uri: str,
    name: str,
    title: str | None = None,
    mime_type: str | None = None,
    size: int | None = None,
    description: str | None = None,
    skill: SkillEntry | None = None,
) -> Entry:
    label = title or name
    text = "\n".join(filter(None, (label, name, uri, description, "skill" if skill is not None else None)))
    key = _KEY_PREFIX[kind] + uri
    return Entry(
        kind, server, uri, name, title, mime_type, size, description, key, label.casefold(), text.casefold(), skill
    )


def skill_entry(server: str, skill: SkillEntry) -> Entry:
    """A skill's row: named by its front matter, opened and attached as its `SKILL.md`."""
    size = sum(f.size for f in skill.files) if skill.files is not None else None
    return make_entry(
        EntryKind.SKILL, server, skill.uri, skill.name, None, "text/markdown", size, skill.description, skill
    )


def entries_of(catalog: ServerCatalog) -> list[Entry]:
    """Resources, templates, then skills, in the server's order; a URI listed twice keeps its first listing.

    A skill's files are left out of the resources: they are the skill's, read through it.
    """
    seen: set[EntryKey] = set()
    entries: list[Entry] = []
    skills = catalog.skills.entries if catalog.skills is not None else ()
    skill_files = {f.uri for skill in skills for f in skill.files or ()} | {skill.uri for skill in skills}
    items: Iterable[Resource | ResourceTemplate] = (
        *(r for r in catalog.resources if r.uri not in skill_files),
        *catalog.templates,
    )
    for item in items:
        if isinstance(item, Resource):
            entry = make_entry(
                EntryKind.RESOURCE,
                catalog.server,
                item.uri,
                item.name,
                item.title,
                item.mime_type,
                item.size,
                item.description,
            )
        else:
            entry = make_entry(
                EntryKind.TEMPLATE,
                catalog.server,
                item.uri_template,
                item.name,
                item.title,
                item.mime_type,
                None,
                item.description,
            )
        if entry.key not in seen:
            seen.add(entry.key)
            entries.append(entry)
    for skill in skills:
        entry = skill_entry(catalog.server, skill)
        if entry.key not in seen:
            seen.add(entry.key)
            entries.append(entry)
    return entries


def type_text(entry: Entry) -> str:
    if entry.skill is not None:
        return skill_type(entry.skill)
    if entry.is_template:
        return f"template · {entry.mime_type}" if entry.mime_type else "template"
    return entry.mime_type or ""


def size_text(entry: Entry) -> str:
    return human_size(entry.size) if entry.size is not None else ""


def entry_tooltip(entry: Entry) -> str:
    """A row's tooltip: what it is, its URI, its type and size (a skill's says whether it can be loaded)."""
    if entry.skill is not None:
        return skill_tooltip(entry.server, entry.skill)
    lines = [entry.description or entry.label, entry.uri]
    kind = ("template" + (f" · {entry.mime_type}" if entry.mime_type else "")) if entry.is_template else None
    if kind or entry.mime_type:
        lines.append(kind or entry.mime_type or "")
    if entry.size is not None:
        lines.append(f"{entry.size:,} bytes")
    return "\n".join(lines)


def refs_of(entries: Iterable[Entry | None]) -> list[ResourceRef]:
    """The attachable resources among `entries` (templates are not), in order, without repeats."""
    return list(dict.fromkeys(e.ref() for e in entries if e is not None and not e.is_template))

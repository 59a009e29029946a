"""One server of the resource tree: its row's status, the entries it last listed, and their counts."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QIcon

from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.qt_kit.icons import ContentKind, kind_for, kind_icon
from desktop_app.qt_kit.server_icon_cache import RowIcons
from resources_ui.tree_entries import Entry, EntryKey


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


@dataclass
class ServerRows:
    """A server row and its children; `id` names it in the model's indexes."""

    id: int
    name: str
    status: ServerStatus
    entries: list[Entry] = field(default_factory=list)
    rows: dict[EntryKey, int] = field(default_factory=dict)
    listed: bool = False
    """Whether `entries` come from a live catalog (False before the first listing and after it went away)."""
    listing: tuple[object, object, object] = ((), (), None)
    """The catalog's resources, templates and skills the entries were made from (a relist of the tools keeps them)."""
    templates: int = 0
    skills: int = 0
    icons: RowIcons = field(default_factory=RowIcons)
    """The server's and its rows' own icons (most servers have none: the app's glyphs are drawn)."""

    @property
    def live(self) -> bool:
        return self.status.state is ServerState.READY

    def counts(self) -> str:
        if not self.listed and not self.entries:
            return "nothing listed yet"
        resources = len(self.entries) - self.templates - self.skills
        text = f"{_plural(resources, 'resource')} · {_plural(self.templates, 'template')}"
        if self.skills:
            text += f" · {_plural(self.skills, 'skill')}"
        return text if self.listed else f"{text} (last known)"

    def set_entries(self, entries: list[Entry]) -> list[Entry]:
        """Make `entries` the children, counted and found by key; returns the ones they replace."""
        old = self.entries
        self.entries = entries
        self.rows = {entry.key: row for row, entry in enumerate(entries)}
        self.templates = sum(entry.is_template for entry in entries)
        self.skills = sum(entry.skill is not None for entry in entries)
        return old

    def entry_icon(self, entry: Entry) -> QIcon:
        """The row's own icon when the server gave it one, else the glyph of its kind."""
        if (own := self.icons.entry(entry.is_template, entry.uri)) is not None:
            return own
        return kind_icon(ContentKind.TEMPLATE if entry.is_template else kind_for(entry.mime_type, entry.uri))

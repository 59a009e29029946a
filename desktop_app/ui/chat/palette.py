"""The command palette (Ctrl+K): every server's prompts and skills and the app's commands, fuzzy-filtered.

Keyboard first: type to filter, Up/Down to move, Enter to run, Esc to close.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from mcp_types import Prompt
from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QPixmap
from PySide6.QtWidgets import QFrame, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget
from rapidfuzz import fuzz, utils

from desktop_app.core.catalog import Catalog
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.skills.manifest import problem
from desktop_app.qt_kit.server_icon_cache import CARD_SIDE, item_icon
from desktop_app.qt_kit.theme import themed
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.widgets.plain_tooltips import as_plain_rich_text

MIN_SCORE = 55.0
MAX_ROWS = 12


@dataclass(frozen=True)
class PaletteEntry:
    """One thing the palette can do; `kind` groups prompts apart from app commands."""

    kind: str  # "prompt" | "skill" | "command"
    title: str
    subtitle: str
    run: Callable[[], object]
    keywords: str = ""
    icon: QIcon | None = None
    """The item's own icon from its server (a prompt's, else its server's), checked and decoded once."""


KIND_LABELS = {"prompt": "Prompt", "skill": "Skill", "command": "Command"}


def skill_entries(catalog: Catalog, attach: Callable[[list[ResourceRef]], object]) -> list[PaletteEntry]:
    """A palette entry per skill that can be loaded: it attaches the skill (the user is asked when it is sent)."""
    entries = []
    for server, skill in catalog.skills():
        if problem(skill) is None:
            ref = ResourceRef(server, skill.uri, skill.name, "text/markdown")
            subtitle = f"{server} · skill · {' '.join(skill.description.split())[:200]}"
            entries.append(PaletteEntry("skill", skill.name, subtitle, partial(attach, [ref]), skill.uri))
    return entries


def prompt_entries(catalog: Catalog, open_for: Callable[[str, Prompt], object]) -> list[PaletteEntry]:
    """A palette entry per prompt, with its own icon (else its server's; else none, as the commands)."""
    entries = []
    for server, prompt in catalog.prompts():
        info = catalog.servers[server].server_info
        icon = item_icon(prompt.icons, CARD_SIDE) or item_icon(info.icons if info else None, CARD_SIDE)
        subtitle = f"{server} · {prompt.description or 'prompt'}"
        run = partial(open_for, server, prompt)
        entries.append(PaletteEntry("prompt", prompt.title or prompt.name, subtitle, run, icon=icon))
    return entries


def rank(query: str, entries: Sequence[PaletteEntry]) -> list[PaletteEntry]:
    """Entries matching `query`, best first: word-prefix hits, then fuzzy title, then other text."""
    needle = utils.default_process(query)
    if not needle:
        return list(entries)
    scored: list[tuple[float, int, PaletteEntry]] = []
    for index, entry in enumerate(entries):
        title = utils.default_process(entry.title)
        rest = utils.default_process(f"{entry.subtitle} {entry.keywords}")
        score = max(fuzz.partial_ratio(needle, title), 0.8 * fuzz.partial_ratio(needle, rest))
        words = title.replace("_", " ").split()
        if title.startswith(needle):
            score += 30
        elif any(word.startswith(needle) for word in words):
            score += 20
        if score >= MIN_SCORE:
            scored.append((score, -index, entry))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [entry for _, _, entry in scored]


class CommandPalette(QFrame):
    """A floating filter box over a list; `close()` hides it and gives focus back."""

    triggered = Signal(object)  # PaletteEntry

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("commandPalette")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        themed(
            self,
            lambda p: (
                f"#commandPalette {{ border: 1px solid {p.border}; border-radius: {SPACE.radius + 2}px;"
                f" background: {p.surface}; }}"
            ),
        )
        self.query = QLineEdit()
        self.query.setPlaceholderText("Run a prompt or a command…")
        self.query.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setUniformItemSizes(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setIconSize(QSize(CARD_SIDE, CARD_SIDE))
        self.list.itemActivated.connect(lambda _item: self.run_current())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.query)
        layout.addWidget(self.list)
        self.query.textChanged.connect(self._refilter)
        self.query.installEventFilter(self)
        self._entries: list[PaletteEntry] = []
        self._width = 480
        self.hide()

    def open_with(self, entries: Sequence[PaletteEntry]) -> None:
        self._entries = list(entries)
        self.query.clear()
        self._refilter()
        parent = self.parentWidget()
        assert parent is not None
        self._width = min(640, max(360, parent.width() - 80))
        self._fit()
        self.move(QPoint((parent.width() - self._width) // 2, 48))
        self.show()
        self.raise_()
        self.query.setFocus()

    def visible_entries(self) -> list[PaletteEntry]:
        return [self.list.item(row).data(Qt.ItemDataRole.UserRole) for row in range(self.list.count())]

    def run_current(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        entry: PaletteEntry = item.data(Qt.ItemDataRole.UserRole)
        self.hide()
        self.triggered.emit(entry)
        entry.run()

    def _refilter(self) -> None:
        self.list.clear()
        ranked = rank(self.query.text(), self._entries)
        # Rows are one height (uniform sizes): with any icon shown, the others keep its room, blank.
        blank = _blank_icon() if any(entry.icon is not None for entry in ranked) else None
        for entry in ranked:
            label = KIND_LABELS.get(entry.kind, "Command")
            item = QListWidgetItem(f"{entry.title}    —  {entry.subtitle}" if entry.subtitle else entry.title)
            if (icon := entry.icon or blank) is not None:
                item.setIcon(icon)
            item.setToolTip(as_plain_rich_text(f"{label}: {entry.subtitle}"))
            item.setData(Qt.ItemDataRole.UserRole, entry)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        if self.isVisible():
            self._fit()

    def _fit(self) -> None:
        """As tall as the matches need (up to twelve rows), so a short list is a short box."""
        row = self.list.sizeHintForRow(0) if self.list.count() else self.query.sizeHint().height()
        rows = min(max(self.list.count(), 1), MAX_ROWS)
        self.list.setFixedHeight(rows * row + 2 * self.list.frameWidth())
        self.resize(self._width, self.sizeHint().height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.query and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                step = 1 if key == Qt.Key.Key_Down else -1
                row = max(0, min(self.list.count() - 1, self.list.currentRow() + step))
                self.list.setCurrentRow(row)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.run_current()
                return True
            if key == Qt.Key.Key_Escape:
                self.hide()
                return True
        return super().eventFilter(watched, event)


def _blank_icon() -> QIcon:
    pixmap = QPixmap(CARD_SIDE, CARD_SIDE)
    pixmap.fill(QColor(0, 0, 0, 0))
    return QIcon(pixmap)

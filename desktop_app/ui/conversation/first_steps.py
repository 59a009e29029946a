"""What an empty chat offers to try with what is connected: a prompt, a resource, a question for a server.

Up to three suggestions, picked from the catalog of the moment (`suggestions`) and drawn as buttons
while the chat has no message. A click does what the palette, a drag or typing would: it opens the
prompt's form, attaches the resource from the server that listed it, or puts a question in the
composer. Nothing is sent to the model and no tool is called until the user sends. Titles and names
are the servers' words: one line, control and bidi characters written out, plain text, elided.
`first_steps_offer` keeps the suggestions in line with the servers and does what a click asks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice, zip_longest
from typing import Final, Literal

from mcp_types import Prompt
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QAbstractScrollArea, QHBoxLayout, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from desktop_app.core.catalog import Catalog
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.elided_label import ElidedLabel
from desktop_app.qt_kit.theme import muted, themed
from desktop_app.qt_kit.tokens import SPACE, Palette
from desktop_app.ui.widgets.empty_state import (
    FIRST_STEPS_CONNECTING,
    FIRST_STEPS_EMPTY,
    FIRST_STEPS_NOTHING,
    empty_note,
)
from desktop_app.ui.widgets.plain_text import plain_label, set_plain_tooltip

MAX_SUGGESTIONS: Final = 3
MAX_WIDTH: Final = 560
"""The suggestions' column at most: a long name is elided within it, never widens it."""
NAME_LIMIT: Final = 160
"""Characters of a server's title or name kept for the button, its tooltip and its accessible name."""
ORIGIN_WIDTH: Final = 160
HEADING: Final = "Try something with what is connected"
ASK_TEXT: Final = "What can you do with the tools of {server}? Suggest two or three things I could try."
Kind = Literal["prompt", "resource", "ask"]
VERBS: Final[dict[Kind, str]] = {"prompt": "Run", "resource": "Attach", "ask": "Ask"}


def one_line(text: str) -> str:
    """A server's words for one line: control and bidi characters shown as escapes, runs of white space
    (line breaks too) as one space, and at most `NAME_LIMIT` characters."""
    line = " ".join(printable(text[: NAME_LIMIT * 4]).split())
    return line if len(line) <= NAME_LIMIT else line[: NAME_LIMIT - 1] + "…"


@dataclass(frozen=True)
class Suggestion:
    """One thing to try: what it does, the name it shows (one line, neutralised) and its server's."""

    kind: Kind
    server: str
    name: str
    prompt: Prompt | None = None
    ref: ResourceRef | None = None
    text: str = ""
    """What an "ask" puts in the composer."""

    @property
    def words(self) -> str:
        """The whole suggestion in words: its accessible name."""
        if self.kind == "ask":
            return f"Ask {self.name}: put a question for it in the message box"
        return f"{VERBS[self.kind]} {self.name}, from {one_line(self.server)}"

    @property
    def tip(self) -> str:
        if self.kind == "prompt":
            return f"{self.words}.\nOpens its form, as picking it in the palette (Ctrl+K) does; nothing is sent."
        if self.kind == "resource":
            return f"{self.words}.\nAttaches it to your message, as dragging it here does; nothing is sent."
        return f"{self.words}.\nThe question goes into the message box for you to change or send."


def suggestions(catalog: Catalog, limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
    """Up to `limit` things to try, a prompt, a resource and a question in turn, from `catalog`."""
    kinds = (list(islice(gen, limit)) for gen in (_prompts(catalog), _resources(catalog), _asks(catalog)))
    mixed = (s for row in zip_longest(*kinds) for s in row if s is not None)
    return list(islice(mixed, limit))


def _prompts(catalog: Catalog) -> Iterator[Suggestion]:
    """Prompts without a required argument first: they are one click from a draft."""
    listed = sorted(catalog.prompts(), key=lambda item: any(a.required for a in item[1].arguments or []))
    for server, prompt in listed:
        yield Suggestion("prompt", server, one_line(prompt.title or prompt.name), prompt=prompt)


def _resources(catalog: Catalog) -> Iterator[Suggestion]:
    """Resources a message can carry: an MCP App's page (`ui://`) is for its view, not to attach."""
    for server, resource in catalog.resources():
        if not resource.uri.startswith("ui://"):
            ref = ResourceRef(server, resource.uri, resource.title or resource.name, resource.mime_type)
            yield Suggestion("resource", server, one_line(ref.name), ref=ref)


def _asks(catalog: Catalog) -> Iterator[Suggestion]:
    """The servers with tools for the model, the most tools first."""
    counts: dict[str, int] = {}
    for tool in catalog.tools():
        counts[tool.server] = counts.get(tool.server, 0) + 1
    for server in sorted(counts, key=lambda name: (-counts[name], name)):
        shown = one_line(server)
        yield Suggestion("ask", server, f"what {shown} can do", text=ASK_TEXT.format(server=shown))


class SuggestionButton(QPushButton):
    """A suggestion as a button: its verb, the name it shows (elided) and where it comes from."""

    def __init__(self, suggestion: Suggestion, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suggestion = suggestion
        self.setObjectName("firstStep")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.verb = plain_label(VERBS[suggestion.kind])
        self.name = ElidedLabel(suggestion.name, Qt.TextElideMode.ElideRight)
        self.origin = ElidedLabel("" if suggestion.kind == "ask" else f"from {one_line(suggestion.server)}")
        self.origin.setFixedWidth(min(self.origin.sizeHint().width(), ORIGIN_WIDTH))  # the name gives way first
        self.origin.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.origin.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        for label in (self.verb, self.name, self.origin):
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)  # the click is the button's
        font = self.verb.font()
        font.setBold(True)
        self.verb.setFont(font)
        themed(self.verb, lambda p: f"color: {p.accent};")
        muted(self.origin)
        row = QHBoxLayout(self)
        row.setContentsMargins(SPACE.l, SPACE.m, SPACE.l, SPACE.m)
        row.setSpacing(SPACE.m)
        row.addWidget(self.verb)
        row.addWidget(self.name, 1)
        row.addWidget(self.origin)
        self.setAccessibleName(suggestion.words)
        set_plain_tooltip(self, suggestion.tip)
        themed(self, _button_sheet)

    def sizeHint(self) -> QSize:
        """As wide as its words, up to the column's width: the layout's wish, not a text button's."""
        layout = self.layout()
        wish = layout.sizeHint() if layout is not None else super().sizeHint()
        return QSize(min(wish.width(), MAX_WIDTH), wish.height())

    def minimumSizeHint(self) -> QSize:
        layout = self.layout()
        return layout.minimumSize() if layout is not None else super().minimumSizeHint()


def _button_sheet(p: Palette) -> str:
    return (
        f"QPushButton#firstStep {{ background: {p.raised}; border: 1px solid {p.border};"
        f" border-radius: {SPACE.radius}px; padding: 0px; text-align: left; }}"
        f" QPushButton#firstStep:hover {{ border-color: {p.accent}; }}"
        f" QPushButton#firstStep:focus {{ border: 2px solid {p.accent}; }}"
        f" QPushButton#firstStep:pressed {{ background: {p.surface}; }}"
        f" QLabel {{ background: transparent; color: {p.text}; }}"
    )


class FirstSteps(QWidget):
    """The empty chat's suggestions, or, with nothing to suggest, what would fill them and how."""

    chosen = Signal(object)  # Suggestion: the user clicked it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstSteps")
        self.setMaximumWidth(MAX_WIDTH)
        self.heading = muted(plain_label(HEADING))
        self.note = empty_note(FIRST_STEPS_NOTHING, "firstStepsNote")
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(SPACE.s)
        self._layout.addWidget(self.heading)
        self._layout.addWidget(self.note)
        self.buttons: list[SuggestionButton] = []
        self._shown: list[Suggestion] | None = None
        self.hide()  # until it is told what is connected

    def sizeHint(self) -> QSize:
        """The column's whole width where there is room: the buttons are one width, whatever their words."""
        return QSize(MAX_WIDTH, super().sizeHint().height())

    def show_suggestions(self, offered: Sequence[Suggestion], *, connecting: bool, connected: bool) -> None:
        """Show `offered`; with none, the note says why: servers still `connecting`, the `connected` ones
        offering nothing to try, or none at all."""
        if list(offered) != self._shown:
            self._shown = list(offered)
            for button in self.buttons:
                self._layout.removeWidget(button)
                button.hide()
                button.deleteLater()
            self.buttons = [SuggestionButton(suggestion) for suggestion in offered]
            for button in self.buttons:
                button.clicked.connect(lambda _=False, chosen=button.suggestion: self.chosen.emit(chosen))
                self._layout.addWidget(button)
        self.heading.setVisible(bool(offered))
        note = FIRST_STEPS_CONNECTING if connecting else FIRST_STEPS_EMPTY if connected else FIRST_STEPS_NOTHING
        self.note.setText(note)
        self.note.setVisible(not offered)
        self.show()


class EmptyChat(QWidget):
    """What an empty chat offers above its hint: a card (the model chooser, while no model is chosen), then
    the first steps. The conversation shows it while it has no message."""

    def __init__(self, steps: FirstSteps, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps = steps
        self.card: QWidget | None = None
        self.lift = 0
        """Room above the offer: a third of the height the column leaves free, so it sits towards the middle."""
        self._viewport: QWidget | None = None
        self._placing = QTimer(self, singleShot=True, interval=0)  # once the layouts have their new sizes
        self._placing.timeout.connect(self._place)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, SPACE.xl, 0, 0)
        self._layout.setSpacing(SPACE.xl)
        self._layout.addWidget(steps, 0, Qt.AlignmentFlag.AlignHCenter)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        area, column = self._scroll_area(), self.parentWidget()
        if area is not None and column is not None and self._viewport is not area.viewport():
            self._viewport = area.viewport()
            self._viewport.installEventFilter(self)  # the window resized
            column.installEventFilter(self)  # the offer filled in, or a card came or went
        self._placing.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.Resize, QEvent.Type.LayoutRequest) and watched in (self._viewport, self.parentWidget()):
            self._placing.start()
        return super().eventFilter(watched, event)

    def _scroll_area(self) -> QAbstractScrollArea | None:
        widget = self.parentWidget()
        while widget is not None and not isinstance(widget, QAbstractScrollArea):
            widget = widget.parentWidget()
        return widget

    def _place(self) -> None:
        """Lift the offer by a third of the height the column leaves free (none in a window too small for it)."""
        column, area = self.parentWidget(), self._scroll_area()
        if column is None or area is None or not self.isVisible():
            return
        free = area.viewport().height() - (column.sizeHint().height() - self.lift)
        lift = max(free // 3, 0)
        if lift != self.lift:
            self.lift = lift
            self._layout.setContentsMargins(0, SPACE.xl + lift, 0, 0)

    def set_card(self, card: QWidget | None) -> None:
        """Offer `card` above the first steps (None: no card)."""
        if self.card is card:
            return
        if self.card is not None:
            self.card.hide()
            self._layout.removeWidget(self.card)
        self.card = card
        if card is not None:
            self._layout.insertWidget(0, card)
            card.show()

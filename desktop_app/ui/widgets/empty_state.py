"""What an empty list says in its place: what would fill it and how, in the theme's muted colour.

A blank list reads as broken or as still loading; a sentence naming the menu entry or the action that
fills it is the way in. The note takes the list's place while the list has no rows, and gives it back
as soon as one comes (rows inserted or removed, the list rebuilt).
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QBoxLayout, QLabel

from desktop_app.qt_kit.theme import muted
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.widgets.plain_text import plain_label

SERVERS_EMPTY: Final = (
    "No servers yet. Add one with Servers → Add server… (or the button below), install one from the gallery"
    " with Servers → Find servers…, or bring yours over from another app with Servers → Import from."
)
HISTORY_EMPTY: Final = (
    "No chats yet. Each chat you send a message in is kept here, under the day it was last used:"
    " click one to pick it up again, F2 renames it, Delete removes it."
)
TASKS_EMPTY: Final = (
    "No tasks yet. When a server runs a tool as a task (a long job), it shows here while it works and for a"
    " while after; one still running when MCP Desk quits is followed again at the next start."
)

FIRST_STEPS_NOTHING: Final = (
    "No server is connected, so there is nothing to try yet. Install one from the gallery with Servers → Find"
    " servers…, or add your own with Servers → Add server… (also in the Servers panel)."
)
FIRST_STEPS_EMPTY: Final = (
    "The connected servers offer no prompts, resources or tools to try. Install another from the gallery with"
    " Servers → Find servers…, or add your own with Servers → Add server… (also in the Servers panel)."
)
FIRST_STEPS_CONNECTING: Final = "Your servers are connecting: what they offer to try appears here once they are ready."


def empty_note(text: str, name: str) -> QLabel:
    """A muted, word-wrapped note (plain text) saying what would fill a list and how."""
    note = muted(plain_label(text), f"padding: {SPACE.l}px {SPACE.m}px;")
    note.setObjectName(name)
    note.setWordWrap(True)
    note.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return note


class EmptySwap(QObject):
    """Shows `note` instead of `view` while `view` has no rows (both sit in the same layout)."""

    def __init__(self, view: QAbstractItemView, note: QLabel) -> None:
        super().__init__(view)
        self._view, self._note = view, note
        model = view.model()
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset, model.layoutChanged):
            signal.connect(lambda *_: self.sync())
        self.sync()

    @property
    def empty(self) -> bool:
        return self._view.model().rowCount() == 0

    def sync(self) -> None:
        try:
            empty = self.empty
            self._note.setVisible(empty)
            self._view.setVisible(not empty)
        except RuntimeError:  # a list being deleted empties its model first: nothing is left to show
            return


def note_in_place_of(view: QAbstractItemView, text: str, name: str) -> QLabel:
    """A note put just before `view` in its layout, shown in its place while it has no rows."""
    note = empty_note(text, name)
    parent = view.parentWidget()
    layout = parent.layout() if parent is not None else None
    if not isinstance(layout, QBoxLayout) or layout.indexOf(view) < 0:
        raise ValueError("the view must sit directly in its parent's box layout")
    layout.insertWidget(layout.indexOf(view), note)
    EmptySwap(view, note)
    return note

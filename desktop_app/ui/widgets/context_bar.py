"""The status bar's context meter: a small bar of the model's context in use, its figure beside it.

The bar fills against the model's context window in the accent colour, in the caution colour from
three quarters and in the danger colour from nine tenths, so a long chat is seen filling up before the
provider refuses it. The figures behind it (tokens in use of the window, per part) are its tooltip and
its accessible description; a screen reader reads the bar as "Context used" at its percentage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QWidget

from desktop_app.qt_kit.theme import themed
from desktop_app.qt_kit.tokens import SPACE, Palette
from desktop_app.ui.widgets.fitting_label import FittingLabel
from desktop_app.ui.widgets.plain_text import set_plain_tooltip

BAR_WIDTH: Final = 96
BAR_HEIGHT: Final = 8
CAUTION_FROM: Final = 0.75
DANGER_FROM: Final = 0.90
ACCESSIBLE_NAME: Final = "Context used"
Level = Literal["accent", "caution", "danger"]


class ContextUse(NamedTuple):
    """What the next request to the model would carry, in tokens, against what the model takes."""

    used: int
    window: int | None
    """The model's context window (None: the model library does not know this model)."""
    model: str
    system: int
    """The system prompt, the catalog within it."""
    catalog: int
    conversation: int | None
    """The chat's messages as of the last call to the model (None: no call in this chat yet)."""


def level(used: int, window: int | None) -> Level:
    """The bar's colour: the accent, then caution from 75 % of the window and danger from 90 %."""
    share = used / window if window else 0.0
    return "danger" if share >= DANGER_FROM else "caution" if share >= CAUTION_FROM else "accent"


def compact(tokens: int) -> str:
    """A count the way the bar's figure says it: 412, 3.1k, 91k, 128k, 1M."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if tokens >= size:
            value = tokens / size
            return f"{value:.1f}".removesuffix(".0") + unit if value < 10 else f"{value:,.0f}{unit}"
    return str(tokens)


def short_figure(use: ContextUse) -> str:
    """The figure beside the bar: "3.1k / 128k", or "3.1k tokens" against an unknown window."""
    return f"{compact(use.used)} / {compact(use.window)}" if use.window else f"{compact(use.used)} tokens"


def use_sentences(use: ContextUse) -> list[str]:
    """The numbers behind the bar, as its tooltip says them."""
    if use.window:
        share = f"{use.used / use.window:.0%}"
        first = f"Context: {use.used:,} of {use.window:,} tokens ({share} of the context window of {use.model})."
    else:
        first = f"Context: {use.used:,} tokens (the context window of {use.model} is not known to MCP Desk)."
    parts = f"The system prompt takes {use.system:,} tokens, the catalog {use.catalog:,} of them"
    if use.conversation is not None:
        parts += f"; the conversation {use.conversation:,}, as of the last call to the model"
    return [first, parts + "."]


class ContextBar(QWidget):
    """The bar and the figure beside it (`label`: its whole wording is its text, its short figure shown)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("contextBar")
        self.bar = QProgressBar()
        self.bar.setObjectName("contextFill")
        self.bar.setRange(0, 100)
        self.bar.setTextVisible(False)
        self.bar.setFixedSize(BAR_WIDTH, BAR_HEIGHT)
        self.bar.setAccessibleName(ACCESSIBLE_NAME)
        self.label = FittingLabel()
        self.label.setObjectName("contextMeter")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(SPACE.s, 0, SPACE.s, 0)
        layout.setSpacing(SPACE.m)
        layout.addWidget(self.bar, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.label, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addStretch(1)
        self.level: Level = "accent"
        self._paint()
        self.hide()  # until the first count

    def show_use(self, use: ContextUse, wordings: Sequence[str], notes: Sequence[str]) -> None:
        """Fill the bar for `use`; `wordings` are the label's whole wording (longest first), `notes` more
        sentences for the tooltip after the numbers."""
        share = use.used / use.window if use.window else 0.0
        self.bar.setValue(min(100, round(share * 100)))
        figure = short_figure(use)
        room = self.label.fontMetrics().horizontalAdvance(figure)
        longer = [wording for wording in wordings if self.label.fontMetrics().horizontalAdvance(wording) > room]
        self.label.set_wordings(*dict.fromkeys([*longer, figure]))  # the figure is the one that fits its room
        self.label.setMaximumWidth(room + 2 * SPACE.xs)
        tip = "\n".join([*use_sentences(use), *notes])
        for widget in (self, self.bar, self.label):
            set_plain_tooltip(widget, tip)
        self.bar.setAccessibleDescription(tip)
        if (new := level(use.used, use.window)) != self.level:
            self.level = new
            self._paint()
        self.show()

    def _paint(self) -> None:
        chosen = self.level
        themed(self.bar, lambda p: _sheet(p, chosen))


def _sheet(p: Palette, chosen: Level) -> str:
    fill = {"accent": p.accent, "caution": p.caution, "danger": p.danger}[chosen]
    radius = BAR_HEIGHT // 2
    return (
        f"QProgressBar {{ background: {p.border}; border: none; border-radius: {radius}px; }}"
        f" QProgressBar::chunk {{ background: {fill}; border-radius: {radius}px; }}"
    )

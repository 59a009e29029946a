"""The request's parts as one stacked bar above the ledger's table, read at a glance: the system prompt,
each server's catalog and tools, MCP Desk's own tools, the messages and the resources read, each as
wide as its share of the tokens, and a legend naming each with its count.

Colours come from the theme's tokens (each at least 3:1 on the window's backgrounds, in light and dark)
and are read when painting, so a change of theme repaints them. A server's name is the server's word:
plain text, elided in the legend, whole in its tooltip. A ledger with no tokens draws no bar at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolTip, QVBoxLayout, QWidget

from desktop_app.core.ledger.parts import Ledger, PartKind, Section
from desktop_app.qt_kit.elided_label import ElidedLabel
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.layout_widgets import discard_widgets
from desktop_app.qt_kit.theme import muted, tokens
from desktop_app.qt_kit.tokens import SPACE, Palette
from desktop_app.ui.widgets.plain_text import plain_label
from desktop_app.ui.widgets.plain_tooltips import as_plain_rich_text

BAR_HEIGHT: Final = 14
GAP: Final = 2
"""Between two segments, in the background's colour: neighbours of like colours stay told apart."""
MIN_SEGMENT: Final = 3
"""A part too small to see at its share is drawn this wide, so each one in the legend is on the bar too."""
NAME_WIDTH: Final = 220
"""A legend entry's name is elided past this: a server's name may be of any length."""
DESCRIBED_NAME: Final = 60
"""Characters of a server's name in the bar's accessible description."""

Tone = Callable[[Palette], str]
"""A segment's colour, from the current theme's tokens."""


def _mix(first: str, second: str) -> str:
    """Halfway between two `#rrggbb` colours."""
    a, b = QColor(first), QColor(second)
    return QColor((a.red() + b.red()) // 2, (a.green() + b.green()) // 2, (a.blue() + b.blue()) // 2).name()


def system_tone(p: Palette) -> str:
    return p.muted


def app_tools_tone(p: Palette) -> str:
    return _mix(p.muted, p.text)


def messages_tone(p: Palette) -> str:
    return p.accent


def resources_tone(p: Palette) -> str:
    return p.success


SERVER_TONES: Final[tuple[Tone, ...]] = (
    lambda p: p.caution,
    lambda p: _mix(p.accent, p.danger),
    lambda p: _mix(p.success, p.accent),
    lambda p: _mix(p.caution, p.danger),
    lambda p: _mix(p.caution, p.success),
    lambda p: p.danger,
)
"""Each server's segment in turn (more servers than tones: the legend tells them apart)."""


@dataclass(frozen=True)
class Segment:
    """One stretch of the bar: what it is, its tokens and its colour."""

    label: str
    tokens: int
    tone: Tone
    server: str | None = None


def segments(ledger: Ledger | None) -> list[Segment]:
    """The bar's segments for `ledger`, in reading order, leaving out the empty ones."""
    if ledger is None:
        return []
    system = app_tools = messages = resources = 0
    servers: dict[str, int] = {}
    for part in ledger.parts:
        if part.kind is PartKind.RESOURCE:
            resources += part.tokens
        elif part.section is Section.MESSAGES:
            messages += part.tokens
        elif part.server is not None:
            servers[part.server] = servers.get(part.server, 0) + part.tokens
        elif part.section is Section.TOOLS:
            app_tools += part.tokens
        else:
            system += part.tokens
    found = [Segment("System prompt", system, system_tone)]
    for index, (server, count) in enumerate(sorted(servers.items())):
        found.append(Segment(f"“{server}”: catalog and tools", count, SERVER_TONES[index % len(SERVER_TONES)], server))
    found += [
        Segment("MCP Desk's tools", app_tools, app_tools_tone),
        Segment("Messages", messages, messages_tone),
        Segment("Resources read", resources, resources_tone),
    ]
    return [segment for segment in found if segment.tokens > 0]


def spans(parts: Sequence[Segment], width: int) -> list[tuple[int, int]]:
    """Each segment's `(x, width)` on a bar `width` pixels wide: proportional to its tokens, at least
    `MIN_SEGMENT` wide, with `GAP` between; no segments (or no tokens) draw nothing."""
    total = sum(segment.tokens for segment in parts)
    room = width - GAP * (len(parts) - 1)
    if not parts or total <= 0 or room < MIN_SEGMENT * len(parts):
        return []
    widths = [max(MIN_SEGMENT, round(room * segment.tokens / total)) for segment in parts]
    widest = widths.index(max(widths))
    widths[widest] -= sum(widths) - room  # rounding and the minimums are taken from the widest
    result, x = [], 0
    for wide in widths:
        result.append((x, wide))
        x += wide + GAP
    return result


def describe(parts: Sequence[Segment]) -> str:
    """The bar in words, for screen readers and its tooltip."""
    total = sum(segment.tokens for segment in parts)
    if total <= 0:
        return "No tokens counted."
    lines = []
    for segment in parts:
        label = segment.label
        if segment.server is not None and len(segment.server) > DESCRIBED_NAME:
            label = label.replace(segment.server, segment.server[: DESCRIBED_NAME - 1] + "…")
        lines.append(f"{label}: {segment.tokens:,} tokens ({segment.tokens / total:.0%})")
    return "\n".join(lines)


class StackedBar(QWidget):
    """The bar itself, painted from the theme's tokens."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ledgerBar")
        self.segments: list[Segment] = []
        self.setMinimumHeight(BAR_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("The request's parts by tokens")

    def set_segments(self, parts: list[Segment]) -> None:
        self.segments = parts
        self.setAccessibleDescription(describe(parts))
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(400, BAR_HEIGHT)

    def spans(self) -> list[tuple[int, int]]:
        return spans(self.segments, self.width())

    def paintEvent(self, event: QPaintEvent) -> None:
        palette = tokens(self)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        for segment, (x, wide) in zip(self.segments, self.spans(), strict=False):
            painter.setBrush(QColor(segment.tone(palette)))
            painter.drawRoundedRect(QRectF(x, 0, wide, self.height()), 3, 3)

    def event(self, event: QEvent) -> bool:
        """The segment under the pointer says what it is, as plain text."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            x = event.pos().x()
            hit = [s for s, (left, wide) in zip(self.segments, self.spans(), strict=False) if left <= x < left + wide]
            if hit:
                QToolTip.showText(event.globalPos(), as_plain_rich_text(describe(hit).split("\n")[0]), self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)


class Swatch(QWidget):
    """A legend entry's square in its segment's colour."""

    def __init__(self, tone: Tone) -> None:
        super().__init__()
        self.tone = tone
        self.setFixedSize(12, 12)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(self.tone(tokens(self))))
        painter.drawRoundedRect(QRectF(self.rect()), 3, 3)


def _entry(segment: Segment, total: int) -> QWidget:
    """One legend entry: its colour, its name (a server's, elided) and its tokens."""
    entry = QWidget()
    entry.setObjectName("ledgerLegendEntry")
    row = QHBoxLayout(entry)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(SPACE.s)
    name = ElidedLabel(segment.label, Qt.TextElideMode.ElideMiddle)
    name.setObjectName("ledgerLegendName")
    name.setFixedWidth(min(name.sizeHint().width(), NAME_WIDTH))  # its own width, up to the cap: elided past it
    name.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
    count = muted(plain_label(f"{segment.tokens:,} · {segment.tokens / total:.0%}"))
    count.setObjectName("ledgerLegendCount")
    row.addWidget(Swatch(segment.tone), 0, Qt.AlignmentFlag.AlignVCenter)
    row.addWidget(name)
    row.addWidget(count)
    return entry


class PartsBar(QWidget):
    """The stacked bar over its legend; hidden when there is nothing to draw."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ledgerPartsBar")
        self.bar = StackedBar()
        self.legend = QWidget()
        self.legend.setObjectName("ledgerLegend")
        self._legend_layout = FlowLayout(self.legend, spacing=SPACE.l)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, SPACE.s)
        column.setSpacing(SPACE.m)
        column.addWidget(self.bar)
        column.addWidget(self.legend)
        self.hide()

    @property
    def segments(self) -> list[Segment]:
        return self.bar.segments

    def set_ledger(self, ledger: Ledger | None) -> None:
        parts = segments(ledger)
        self.bar.set_segments(parts)
        discard_widgets(self._legend_layout)
        total = sum(segment.tokens for segment in parts)
        for segment in parts:
            self._legend_layout.addWidget(_entry(segment, total))
        self.setVisible(bool(parts))


def legend_names(bar: PartsBar) -> list[QLabel]:
    """The legend's name labels, in order (what tests and screen readers read)."""
    return bar.legend.findChildren(QLabel, "ledgerLegendName")

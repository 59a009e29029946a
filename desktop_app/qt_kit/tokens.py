"""The design tokens: the palette of each theme, the type scale and the spacing scale, defined once.

Every widget and style sheet takes its colours, sizes and gaps from here, so the window reads as one
system and a theme is one table, not a search through the widgets. Plain values, no Qt: the contrast
check (`contrast_ratio`) runs on them alone. `desktop_app/qt_kit/theme.py` picks the table for the window's
current colours and turns tokens into style sheets.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final


@dataclass(frozen=True)
class Palette:
    """One theme's colours, as `#rrggbb`.

    Text colours (`text`, `muted`, `accent`, `success`, `caution`, `danger`) are read on `surface`,
    `raised` and `window`, and meet WCAG AA body-text contrast (4.5:1) on all three; `on_accent` is
    text on an `accent` fill. `border` is a hairline that only groups what is already told apart by
    its text; nothing is recognised by the border alone. What the user types into (a line, a list to pick
    from, a number, a date) is recognised by its frame, so `field_border` meets the 3:1 of WCAG 1.4.11 for
    the parts of a control on `field` and on every background in `BACKGROUNDS`; `field` is the inside of
    such a control, told apart from the card or pane around it.
    """

    dark: bool
    window: str
    """The frame around the panes (docks, status bar), as the platform or Fusion draws it."""
    surface: str
    """What the conversation is read on: the chat column, an answer."""
    raised: str
    """Above the surface: the user's messages, cards, code blocks, a table's header row."""
    border: str
    field: str
    """The inside of a control that takes text: a line, a number, a date, a list to pick from."""
    field_border: str
    """The frame of such a control (3:1 on `field` and on every background: WCAG 1.4.11)."""
    text: str
    muted: str
    """Secondary text: metadata, hints, a card's description."""
    accent: str
    """Links, focus and the one emphasised action."""
    on_accent: str
    success: str
    caution: str
    danger: str

    def colours(self) -> dict[str, str]:
        """Every colour by its token name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "dark"}


LIGHT: Final = Palette(
    dark=False,
    window="#efefef",
    surface="#ffffff",
    raised="#f3f4f7",
    border="#d5d9e0",
    field="#ffffff",
    field_border="#7d838e",
    text="#1f2328",
    muted="#5d6470",
    accent="#2456c7",
    on_accent="#ffffff",
    success="#1a7339",
    caution="#8a5a00",
    danger="#b42318",
)

DARK: Final = Palette(
    dark=True,
    window="#2b2d31",
    surface="#1f2023",
    raised="#2b2d31",
    border="#44474f",
    field="#18191c",
    field_border="#80848d",
    text="#e6e6e6",
    muted="#a3a9b4",
    accent="#86a8f8",
    on_accent="#10131a",
    success="#5cc486",
    caution="#e3b341",
    danger="#ff8a80",
)

TEXT_ROLES: Final = ("text", "muted", "accent", "success", "caution", "danger")
"""The colours text is written in; each meets 4.5:1 on every background in `BACKGROUNDS`."""
BACKGROUNDS: Final = ("window", "surface", "raised")


@dataclass(frozen=True)
class TypeScale:
    """Font sizes in points, derived from the user's own body size (never smaller than they chose to read)."""

    body: float
    small: float
    title: float
    monospace_family: str = "monospace"

    @classmethod
    def around(cls, body: float) -> TypeScale:
        """The scale for a body size (the application font's): small is a step down, title two steps up."""
        body = body if body > 0 else 10.0
        return cls(body=body, small=max(round(body * 0.9 * 2) / 2, 7.0), title=round(body * 1.3 * 2) / 2)


@dataclass(frozen=True)
class Spacing:
    """Gaps and paddings in pixels: one scale, so rows and cards line up."""

    xs: int = 2
    s: int = 4
    m: int = 8
    l: int = 12  # noqa: E741 - the scale's names are its sizes
    xl: int = 16
    xxl: int = 24
    radius: int = 8
    """Corners of cards and bubbles."""


SPACE: Final = Spacing()

UNBOUNDED: Final = 16_777_215
"""Qt's largest widget size (QWIDGETSIZE_MAX): a maximum height or width set back to no limit."""

READABLE_WIDTH: Final = 760
"""The conversation's widest column in pixels: lines longer than about 90 characters are hard to follow."""


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of `#rrggbb`."""
    value = colour.lstrip("#")
    channels = (int(value[i : i + 2], 16) / 255 for i in (0, 2, 4))
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2 contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)

"""The tokens of the theme the window shows now, and style sheets that follow a change of theme.

A widget with a style sheet of its own keeps its colours when the application's palette changes, so
a sheet built from one theme's tokens would stay in that theme. `themed` builds a widget's sheet from
the current tokens and remembers how; `restyle` (the main window calls it when the palette changes:
Settings or the system's own switch) builds every remembered sheet again from the new tokens.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from PySide6.QtGui import QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from desktop_app.qt_kit.tokens import DARK, LIGHT, SPACE, TEXT_ROLES, Palette, TypeScale

SheetBuilder = Callable[[Palette], str]
"""A widget's style sheet, written from a palette's tokens."""
Follower = Callable[[QWidget, Palette], bool]
"""Gives a widget the look of a palette's tokens; whether that changed anything. It is kept beside the
widget, not in it: it must not hold the widget (the widget would never be let go)."""

_followers: weakref.WeakKeyDictionary[QWidget, Follower] = weakref.WeakKeyDictionary()


def palette_is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def tokens(widget: QWidget | None = None) -> Palette:
    """The palette of tokens for the colours `widget` (or, without one, the application) is drawn in."""
    palette = widget.palette() if widget is not None else QGuiApplication.palette()
    return DARK if palette_is_dark(palette) else LIGHT


def type_scale() -> TypeScale:
    """The type scale around the application's body font (the user's size, in points)."""
    return TypeScale.around(QGuiApplication.font().pointSizeF())


def on_theme(widget: QWidget, follow: Follower) -> None:
    """Give `widget` the current theme's look with `follow`, and again after every change of theme."""
    _followers[widget] = follow
    follow(widget, tokens())


def _sheet(build: SheetBuilder, widget: QWidget, palette: Palette) -> bool:
    sheet = build(palette)
    if widget.styleSheet() == sheet:  # setting it, even unchanged, polishes the widget and its children again
        return False
    widget.setStyleSheet(sheet)
    return True


def themed(widget: QWidget, build: SheetBuilder) -> None:
    """Give `widget` the sheet `build` writes for the current theme, and again after every change of theme."""
    on_theme(widget, partial(_sheet, build))


def restyle() -> int:
    """Give every widget that follows the theme the current tokens' look; how many changed."""
    current = tokens()
    changed = 0
    for widget, follow in list(_followers.items()):
        try:
            changed += follow(widget, current)
        except RuntimeError:  # its C++ side is gone, the Python side not yet
            _followers.pop(widget, None)
    return changed


W = TypeVar("W", bound=QWidget)


def coloured(widget: W, role: str, extra: str = "") -> W:
    """`widget`'s text in the theme's colour `role` (one of `TEXT_ROLES`; "" for the platform's own), and
    again after a change of theme; called again, the new role replaces the old (`extra`: more declarations)."""
    if role and role not in TEXT_ROLES:
        raise ValueError(f"{role!r} is not a text colour of the tokens")
    themed(widget, lambda p: f"{f'color: {getattr(p, role)};' if role else ''} {extra}".strip())
    return widget


def muted(label: W, extra: str = "") -> W:
    """Secondary text in the theme's muted colour (`extra`: more declarations, e.g. a padding)."""
    return coloured(label, "muted", extra)


def danger(label: W) -> W:
    """A problem's text, in the theme's danger colour."""
    return coloured(label, "danger")


def primary_sheet(p: Palette) -> str:
    """The one emphasised action of a card or form: filled with the accent."""
    return (
        f"QPushButton {{ background: {p.accent}; color: {p.on_accent}; border: 1px solid {p.accent};"
        f" border-radius: {SPACE.radius - 2}px; padding: {SPACE.s}px {SPACE.l}px; font-weight: 600; }}"
        f" QPushButton:hover {{ border-color: {p.text}; }} QPushButton:focus {{ border: 2px solid {p.text}; }}"
        f" QPushButton:disabled {{ background: {p.raised}; color: {p.muted}; border-color: {p.border}; }}"
    )


def primary(button: QPushButton) -> QPushButton:
    """Mark `button` as the emphasised action (the default of a card, Send)."""
    themed(button, primary_sheet)
    return button


def heading(label: QLabel) -> QLabel:
    """A card's or a section's title: the type scale's title size, semi-bold."""
    font = label.font()
    font.setPointSizeF(type_scale().title)
    font.setWeight(QFont.Weight.DemiBold)
    label.setFont(font)
    return label


def monospace_font(base: QFont | None = None) -> QFont:
    """The monospace face of the type scale, at the body size."""
    font = QFont(base) if base is not None else QFont(QGuiApplication.font())
    font.setFamilies([type_scale().monospace_family])
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font

"""The tokens of the theme the window shows now, and style sheets that follow a change of theme.

A widget with a style sheet of its own keeps its colours when the application's palette changes, so
a sheet built from one theme's tokens would stay in that theme. `themed` builds a widget's sheet from
the current tokens and remembers how; `restyle` (the main window calls it when the palette changes:
Settings or the system's own switch) builds every remembered sheet again from the new tokens.
"""

from __future__ import annotations

import tempfile
import weakref
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from typing import Final, TypeVar

from PySide6.QtGui import QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QWidget

from desktop_app.qt_kit.tokens import DARK, LIGHT, SPACE, TEXT_ROLES, Palette, TypeScale

SheetBuilder = Callable[[Palette], str]
"""A widget's style sheet, written from a palette's tokens."""
Follower = Callable[[QWidget, Palette], bool]
"""Gives a widget the look of a palette's tokens; whether that changed anything. It is kept beside the
widget, not in it: it must not hold the widget (the widget would never be let go)."""

_followers: weakref.WeakKeyDictionary[QWidget, Follower] = weakref.WeakKeyDictionary()
_texts: weakref.WeakKeyDictionary[QWidget, Follower] = weakref.WeakKeyDictionary()
"""Labels whose rich text carries colours (`themed_text`): apart from their look, which follows on its own."""


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


TextBuilder = Callable[[Palette], str]
"""A label's rich text, its colours written from a palette's tokens."""


def _text(build: TextBuilder, widget: QWidget, palette: Palette) -> bool:
    text = build(palette)
    if not isinstance(widget, QLabel) or widget.text() == text:
        return False
    widget.setText(text)
    return True


def themed_text(label: QLabel, build: TextBuilder) -> None:
    """Give `label` the rich text `build` writes in the current theme's colours, and again after every change
    of theme (a colour written into text is not the palette's: it stays the old theme's until written again)."""
    follow = partial(_text, build)
    _texts[label] = follow
    follow(label, tokens())


_ARROWS: Final = Path(__file__).with_name("action_icons")
FIELD_ARROWS: Final = ("chevron-down", "chevron-up")
"""The action icons a field's drop-down and step buttons show (`fields_sheet`)."""


@cache
def _arrow_folder() -> Path:
    """Where the arrows of the fields' sheets are written (a sheet reads images from files only); removed
    when the process ends."""
    folder = tempfile.TemporaryDirectory(prefix="mcp-desk-arrows-")
    _arrow_folder.keep = folder  # type: ignore[attr-defined]  # the folder lives as long as the process
    return Path(folder.name)


@cache
def _arrow(name: str, colour: str) -> str:
    """The path of the action icon `name` drawn in `colour`, for a sheet's `image: url(...)`."""
    path = _arrow_folder() / f"{name}-{colour.lstrip('#')}.svg"
    path.write_text((_ARROWS / f"{name}.svg").read_text(encoding="utf-8").replace("currentColor", colour), "utf-8")
    return path.as_posix()


_FIELDS = 'QLineEdit, QAbstractSpinBox, QComboBox, QPlainTextEdit[readOnly="false"]'
"""The controls the user types into or picks from (a read-only text is a view, not a field)."""


def fields_sheet(p: Palette) -> str:
    """The application's one sheet: every field framed in `field_border` on the `field` colour, in every
    window and dialog (a card's form, the gallery's install form, Settings) without a sheet of its own; and
    a dialog's Save, Cancel or Apply without the platform style's icons (the action icons are the one family)."""
    each = [part.strip() for part in _FIELDS.split(",")]
    button, arrow = SPACE.xl + SPACE.s, SPACE.l
    down, up = (_arrow(name, p.text) for name in FIELD_ARROWS)
    down_off, up_off = (_arrow(name, p.border) for name in FIELD_ARROWS)

    def rule(state: str) -> str:
        return ", ".join(f"{part}{state}" for part in each)

    return (
        f"{rule('')} {{ background: {p.field}; color: {p.text}; border: 1px solid {p.field_border};"
        f" border-radius: {SPACE.radius - 4}px; padding: {SPACE.xs}px {SPACE.s}px; }}"
        f" {rule(':focus')} {{ border-color: {p.accent}; }}"
        f" {rule(':disabled')} {{ background: {p.raised}; color: {p.muted}; border-color: {p.border}; }}"
        f" QComboBox::drop-down, QDateTimeEdit::drop-down {{ subcontrol-origin: border; subcontrol-position:"
        f" top right; width: {button}px; border: none; border-left: 1px solid {p.border}; }}"
        f" QAbstractSpinBox::up-button, QAbstractSpinBox::down-button {{ subcontrol-origin: border;"
        f" width: {button}px; border: none; border-left: 1px solid {p.border}; }}"
        f" QAbstractSpinBox::up-button {{ subcontrol-position: top right; }}"
        f" QAbstractSpinBox::down-button {{ subcontrol-position: bottom right; }}"
        f" QComboBox::down-arrow, QDateTimeEdit::down-arrow, QAbstractSpinBox::down-arrow {{"
        f" image: url({down}); width: {arrow}px; height: {arrow}px; }}"
        f" QAbstractSpinBox::up-arrow {{ image: url({up}); width: {arrow}px; height: {arrow}px; }}"
        f" QComboBox::down-arrow:disabled, QAbstractSpinBox::down-arrow:disabled,"
        f" QAbstractSpinBox::down-arrow:off {{ image: url({down_off}); }}"
        f" QAbstractSpinBox::up-arrow:disabled, QAbstractSpinBox::up-arrow:off {{ image: url({up_off}); }}"
        " QDialogButtonBox { dialogbuttonbox-buttons-have-icons: 0; }"
    )


def style_fields(app: QApplication) -> bool:
    """Give `app` the current theme's fields (`fields_sheet`); whether that changed its sheet."""
    sheet = fields_sheet(tokens())
    if app.styleSheet() == sheet:  # setting it polishes every widget again
        return False
    app.setStyleSheet(sheet)
    return True


def restyle() -> int:
    """Give every widget that follows the theme the current tokens' look, and the application its fields';
    how many changed."""
    current = tokens()
    changed = 0
    if isinstance(app := QApplication.instance(), QApplication) and app.styleSheet():
        changed += style_fields(app)
    for followers in (_followers, _texts):
        for widget, follow in list(followers.items()):
            try:
                changed += follow(widget, current)
            except RuntimeError:  # its C++ side is gone, the Python side not yet
                followers.pop(widget, None)
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

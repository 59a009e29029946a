"""How each kind of message looks, from the theme's tokens: who wrote it is told by layout and colour.

The user's messages sit at the right on a raised surface, as wide as their text; the assistant's
answers are the column's full width on its surface, unboxed, so long text reads like a page. Notices
(failures) carry the danger colour, prompts and app messages a coloured rule at their left.
"""

from __future__ import annotations

from typing import Final

from desktop_app.qt_kit.tokens import READABLE_WIDTH, SPACE, Palette, TypeScale

ACTION_NAME: Final = "messageAction"
"""The object name of a message's action buttons (Copy, Edit, Regenerate, Retry)."""
HEADER_NAME: Final = "messageHeader"
BOX_NAME: Final = "userBox"
"""The raised bubble a user's message is written in (its actions sit under it, outside)."""
USER_WIDTH: Final = int(READABLE_WIDTH * 0.8)
"""The widest a user's message grows: it stays a bubble at the right of the column, not a second column."""


def _frame(role: str, p: Palette) -> str:
    """The message's own box: background and border."""
    radius = SPACE.radius
    if role in ("user", "assistant", "info"):
        return "background: transparent; border: none;"
    rule = {"prompt": p.caution, "notice": p.danger, "app": p.success}.get(role, p.border)
    return (
        f"background: {p.raised}; border: 1px solid {p.border}; border-left: 3px solid {rule};"
        f" border-radius: {radius // 2}px;"
    )


def bubble_sheet(role: str, name: str, p: Palette, scale: TypeScale) -> str:
    """The style sheet of a message of `role` whose object name is `name`."""
    text = {"notice": p.danger, "info": p.muted}.get(role, p.text)
    box = f"background: {p.raised}; border: 1px solid {p.border}; border-radius: {SPACE.radius + 4}px;"
    return (
        f"#{name} {{ {_frame(role, p)} }}"
        + (f" #{BOX_NAME} {{ {box} }}" if role == "user" else "")
        + f" QLabel#{HEADER_NAME} {{ color: {p.muted}; font-size: {scale.small}pt; font-weight: 600; }}"
        f" QLabel {{ color: {text}; }}"
        f" QTextBrowser {{ color: {text}; background: transparent; }}"
        f" QPushButton#{ACTION_NAME} {{ color: {p.muted}; background: transparent; border: 1px solid transparent;"
        f" border-radius: {SPACE.s}px; padding: {SPACE.xs}px {SPACE.m}px; font-size: {scale.small}pt; }}"
        f" QPushButton#{ACTION_NAME}:hover {{ color: {p.accent}; background: {p.raised}; }}"
        f" QPushButton#{ACTION_NAME}:focus {{ color: {p.accent}; border-color: {p.accent}; }}"
    )

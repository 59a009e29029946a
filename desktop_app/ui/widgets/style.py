"""The label styles the window's own widgets share, from the theme's tokens (`desktop_app.qt_kit.theme`:
`muted`, `danger`, `coloured` for the rest)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel


def error_label() -> QLabel:
    """An empty, word-wrapped label for a form's problem text, in the theme's danger colour."""
    from desktop_app.qt_kit.theme import danger  # the tokens load after the first paint: this module is read before it

    label = danger(QLabel())
    label.setWordWrap(True)
    return label

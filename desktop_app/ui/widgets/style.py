"""The colours and label styles the window's own widgets share: the theme's tokens, and fixed ones for
the sheets not yet built from them."""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QLabel

from desktop_app.qt_kit.colours import MUTED as MUTED
from desktop_app.qt_kit.colours import MUTED_COLOUR as MUTED_COLOUR

ERROR_COLOUR: Final = "#dc4a3d"
ERROR_STYLE: Final = f"color: {ERROR_COLOUR};"
"""A problem's text where the sheet is written once (3:1 on both themes); `error_label` follows the theme."""


def error_label() -> QLabel:
    """An empty, word-wrapped label for a form's problem text, in the theme's danger colour."""
    from desktop_app.qt_kit.theme import danger  # the tokens load after the first paint: this module is read before it

    label = danger(QLabel())
    label.setWordWrap(True)
    return label

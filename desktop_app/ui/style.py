"""The few colours and label styles the window's own widgets share."""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QLabel

ERROR_COLOUR: Final = "#c0392b"
ERROR_STYLE: Final = f"color: {ERROR_COLOUR};"
MUTED_COLOUR: Final = "#8a8f98"
MUTED: Final = f"color: {MUTED_COLOUR};"
"""Secondary text: notes, origins, hints."""


def error_label() -> QLabel:
    """An empty, word-wrapped label for a form's problem text."""
    label = QLabel()
    label.setStyleSheet(ERROR_STYLE)
    label.setWordWrap(True)
    return label

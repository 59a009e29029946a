"""The few colours and label styles the window's own widgets share."""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QLabel

from resources_ui.colours import MUTED as MUTED
from resources_ui.colours import MUTED_COLOUR as MUTED_COLOUR

ERROR_COLOUR: Final = "#c0392b"
ERROR_STYLE: Final = f"color: {ERROR_COLOUR};"


def error_label() -> QLabel:
    """An empty, word-wrapped label for a form's problem text."""
    label = QLabel()
    label.setStyleSheet(ERROR_STYLE)
    label.setWordWrap(True)
    return label

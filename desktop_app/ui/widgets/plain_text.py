"""Labels and tooltips that show a server's words as the text they are.

Qt guesses whether a label's or a tooltip's text is rich text, and rich text can draw pictures of
any size, fake badges, or name a file for Qt to read as an image (`<img src="/dev/zero">` ends the
process). Text a server or a model wrote goes through these, never through a bare `QLabel(text)`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop_app.ui.widgets.plain_tooltips import as_plain_rich_text


def plain_label(text: str = "") -> QLabel:
    """A label that never reads its text as rich text."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def set_plain_tooltip(widget: QWidget, text: str) -> None:
    """`widget`'s tooltip shows `text` exactly (none when empty)."""
    widget.setToolTip(as_plain_rich_text(text) if text else "")

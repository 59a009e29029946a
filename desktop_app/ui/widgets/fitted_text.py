"""A monospaced text box as tall as its text, up to a number of lines: arguments, results, messages."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase, QResizeEvent
from PySide6.QtWidgets import QPlainTextEdit


class FittedText(QPlainTextEdit):
    """Monospace text as tall as its content (wrapped lines count) up to `max_lines`, then it scrolls."""

    def __init__(self, text: str, max_lines: int = 12, *, read_only: bool = True) -> None:
        super().__init__(text)
        self.max_lines = max_lines
        self.setReadOnly(read_only)
        if read_only:  # a resource dropped here goes to the conversation's composer
            self.setAcceptDrops(False)
            self.viewport().setAcceptDrops(False)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.textChanged.connect(self.refit)
        self.refit()

    def refit(self) -> None:
        lines = 0
        block = self.document().firstBlock()
        while block.isValid():
            layout = block.layout()
            lines += max(layout.lineCount() if layout is not None else 0, 1)
            block = block.next()
        shown = min(max(lines, 1), self.max_lines)
        margins = 2 * round(self.document().documentMargin()) + 2
        # Frame, border and padding as the style draws them (an editable box is a field: padded by its sheet).
        chrome = self.height() - self.viewport().height() if self.viewport().height() > 0 else 2 * self.frameWidth()
        height = self.fontMetrics().lineSpacing() * shown + margins + max(chrome, 2 * self.frameWidth())
        if height != self.height() or self.minimumHeight() != height:
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.refit()  # a new width wraps lines differently

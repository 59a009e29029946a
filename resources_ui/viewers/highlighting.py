"""Syntax highlighting for the text viewer, driven by Pygments.

The whole text is tokenised once (so multi-line strings and comments come out right) and each
block then looks up its spans by position; Qt asks only for blocks it lays out. Pygments is
imported when the first text is shown, not with the window.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any, Final

from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)

from desktop_app.core.content import base_mime

if TYPE_CHECKING:
    from pygments.lexer import Lexer

MAX_HIGHLIGHT_CHARS: Final = 300_000
"""Beyond this the text is shown plain: tokenising megabytes would stall the UI."""
_NOT_CODE: Final = frozenset({"text/plain", ""})


def lexer_for(mime: str | None, uri: str) -> Lexer | None:
    """A Pygments lexer for the declared type, else for the URI's file name; None for plain text."""
    from pygments.lexers import get_lexer_for_filename, get_lexer_for_mimetype
    from pygments.util import ClassNotFound

    essence = base_mime(mime)
    if essence not in _NOT_CODE:
        try:
            return get_lexer_for_mimetype(essence)
        except ClassNotFound:
            pass
    filename = uri.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    if "." not in filename:
        return None
    try:
        return get_lexer_for_filename(filename)
    except ClassNotFound:
        return None


def _utf16_offsets(text: str) -> list[int] | None:
    """Indexes of characters outside the BMP, which take two positions in a QTextDocument."""
    if text.isascii():
        return None
    astral = [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]
    return astral or None


class PygmentsHighlighter(QSyntaxHighlighter):
    """Colours a document from one Pygments pass over its full text."""

    def __init__(self, document: QTextDocument, text: str, lexer: Lexer) -> None:
        super().__init__(document)  # highlighting starts on the next event-loop turn, after this
        from pygments.styles import get_style_by_name

        self._formats: dict[Any, QTextCharFormat | None] = {}
        self._style = get_style_by_name("monokai" if _dark_palette() else "default")
        astral = _utf16_offsets(text)
        starts: list[int] = []
        spans: list[tuple[int, int, QTextCharFormat]] = []
        for index, token, value in lexer.get_tokens_unprocessed(text):
            fmt = self._format(token)
            if fmt is None or not value:
                continue
            start, end = index, index + len(value)
            if astral is not None:
                start += bisect_left(astral, start)
                end += bisect_left(astral, end)
            starts.append(start)
            spans.append((start, end, fmt))
        self._starts = starts
        self._spans = spans

    def _format(self, token: Any) -> QTextCharFormat | None:
        if token in self._formats:
            return self._formats[token]
        style = self._style.style_for_token(token)
        fmt: QTextCharFormat | None = None
        if style["color"] or style["bold"] or style["italic"]:
            fmt = QTextCharFormat()
            if style["color"]:
                fmt.setForeground(QColor(f"#{style['color']}"))
            if style["bold"]:
                fmt.setFontWeight(QFont.Weight.Bold)
            if style["italic"]:
                fmt.setFontItalic(True)
        self._formats[token] = fmt
        return fmt

    def highlightBlock(self, text: str) -> None:
        block_start = self.currentBlock().position()
        block_end = block_start + len(text)
        i = max(0, bisect_right(self._starts, block_start) - 1)
        while i < len(self._spans):
            start, end, fmt = self._spans[i]
            if start >= block_end:
                break
            if end > block_start:
                first = max(start, block_start)
                self.setFormat(first - block_start, min(end, block_end) - first, fmt)
            i += 1


def _dark_palette() -> bool:
    return QGuiApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128

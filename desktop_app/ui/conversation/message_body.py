"""A message's text: a read-only rich text view as tall as its content, and an answer streamed into it.

While an answer streams, its finished blocks are rendered and added once and only the open block at
its end is rendered again (`markdown_blocks`, `streamed_document`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QPalette, QResizeEvent, QTextCursor
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from desktop_app.qt_kit.inert_images import inert_resource
from desktop_app.ui.conversation.markdown_blocks import MarkdownBlocks
from desktop_app.ui.conversation.markdown_html import render_markdown
from desktop_app.ui.conversation.streamed_document import StreamedDocument


def is_dark(widget: QWidget) -> bool:
    """Whether the window around `widget` is dark (its parent's colours: a bubble's own are its role's)."""
    around = widget.parentWidget() or widget
    return around.palette().color(QPalette.ColorRole.Window).lightness() < 128


class AutoHeightBrowser(QTextBrowser):
    """A read-only rich text view as tall as its content, so the conversation scrolls, not it.

    It reads nothing a text names: messages carry no images (`markdown_html` makes them links), and
    should one be asked for, it is the placeholder, never a file.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setAcceptDrops(False)  # resources dropped on a message go up to the conversation pane
        self.viewport().setAcceptDrops(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.document().contentsChanged.connect(self._fit)

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        return inert_resource(kind)

    def _fit(self) -> None:
        document = self.document()
        width = self.viewport().width()
        if document.textWidth() != width:  # setting it, even unchanged, lays out the whole text again
            document.setTextWidth(width)
        height = int(document.size().height()) + 4
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def sizeHint(self) -> QSize:
        return QSize(400, int(self.document().size().height()) + 4)


class MessageStream:
    """What an answer being streamed into a bubble has rendered so far."""

    def __init__(self, browser: QTextBrowser, dark: bool) -> None:
        self.browser = browser
        self.dark = dark
        self.blocks = MarkdownBlocks()
        self.document = StreamedDocument(browser.document())
        self.code: list[str] = []
        """The code of the finished blocks, numbered for their Copy links."""

    def show(self, text: str) -> tuple[str, ...] | None:
        """Show `text`, which extends the last one; its code blocks, or None if it must be rendered whole."""
        split = self.blocks.split(text)
        if split is None:
            return None
        finished: list[str] = []
        for block in split.finished:
            done = render_markdown(block, dark=self.dark, first_code=len(self.code))
            self.code += done.code_blocks
            finished.append(done.html)
        tail = render_markdown(split.tail, dark=self.dark, first_code=len(self.code))
        # A selection in the finished text stays; one that ends where the tail begins would grow with it.
        selection = self.browser.textCursor()
        anchor, position = selection.anchor(), selection.position()
        kept = selection.hasSelection() and max(anchor, position) <= self.document.finished_end
        self.document.update(finished, tail.html)
        if kept:
            selection.setPosition(anchor)
            selection.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
            self.browser.setTextCursor(selection)
        return (*self.code, *tail.code_blocks)

"""A message's text: a read-only rich text view as tall as its content, and an answer streamed into it.

While an answer streams, its finished blocks are rendered and added once and only the open block at
its end is rendered again (`markdown_blocks`, `streamed_document`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt, QUrl
from PySide6.QtGui import QPalette, QResizeEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from desktop_app.qt_kit.action_icon import MESSAGE_ICON, address_image
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
    should one be asked for, it is the placeholder, never a file. The one picture it draws is the kit's own:
    the icon of a code block's Copy link (`markdown_html` names it by its `image_address`), drawn here for
    this screen's pixel ratio, and again when the window moves to a screen with another.
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
        self._icons: set[str] = set()
        """The action icons the document has been given, by address: drawn again at a new pixel ratio."""

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        if kind == QTextDocument.ResourceType.ImageResource.value:
            icon = address_image(name, MESSAGE_ICON, self.devicePixelRatioF())
            if icon is not None:
                self._icons.add(name.toString() if isinstance(name, QUrl) else name)
                return icon
        return inert_resource(kind)

    def event(self, event: QEvent) -> bool:
        if event.type() is QEvent.Type.DevicePixelRatioChange and self._icons:
            document = self.document()
            for address in self._icons:  # the document keeps what it loaded: give it the icons drawn anew
                image = address_image(address, MESSAGE_ICON, self.devicePixelRatioF())
                document.addResource(QTextDocument.ResourceType.ImageResource.value, QUrl(address), image)
            document.markContentsDirty(0, document.characterCount())
        return super().event(event)

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

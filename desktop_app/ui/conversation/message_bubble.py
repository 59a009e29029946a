"""One chat message rendered as markdown; a streamed answer is updated at most every 50 ms, at its end.

A message set at once is rendered whole. While an answer streams, its finished blocks are rendered
and added once and only the open block at its end is rendered again (`markdown_blocks`,
`streamed_document`), so an update costs the same at the 2,000th token as at the 20th.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from PySide6.QtCore import QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QGuiApplication, QPalette, QResizeEvent, QTextCursor
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QTextBrowser, QVBoxLayout, QWidget

from desktop_app.core.resource_ref import ResourceRef
from desktop_app.ui.conversation.attachment_chip import AttachmentChip
from desktop_app.ui.conversation.markdown_blocks import MarkdownBlocks
from desktop_app.ui.conversation.markdown_html import render_markdown
from desktop_app.ui.conversation.streamed_document import StreamedDocument
from resources_ui.flow_layout import FlowLayout
from resources_ui.inert_images import inert_resource
from resources_ui.web_links import WEB_SCHEMES

Role = Literal["user", "assistant", "prompt", "notice", "info", "app"]
"""`notice` is for failures (red); `info` for neutral news such as "Stopped."; `app` for an MCP App's words."""
_TITLES = {"user": "You", "assistant": "Assistant", "prompt": "Prompt", "notice": "", "info": "", "app": "App"}


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


class _Stream:
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


class MessageBubble(QFrame):
    """A message with a role header; `append` is cheap to call for every streamed token."""

    web_link_requested = Signal(str)  # a link to a web page (or a mail address) was clicked

    def __init__(self, role: Role, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.setObjectName(f"{role}Message")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._text = text
        self._rendered: str | None = None
        self._code: tuple[str, ...] = ()
        self._stream: _Stream | None = None
        self._dark = False
        self.header = QLabel(_TITLES[role])
        header_font = self.header.font()
        header_font.setBold(True)
        self.header.setFont(header_font)
        self.body = AutoHeightBrowser()
        self.body.anchorClicked.connect(self._on_link)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        if _TITLES[role]:
            layout.addWidget(self.header)
        layout.addWidget(self.body)
        self._layout = layout
        self._chips: FlowLayout | None = None
        self.action_buttons: dict[str, QPushButton] = {}
        """What can be done with the message now (Edit, Regenerate, Retry), by label."""
        self._actions_row: QWidget | None = None
        self._style()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(50)
        self._timer.timeout.connect(self._render)
        self._render()

    def follow_theme(self) -> None:
        """The theme changed (Settings, or the system's): the bubble's colours and its text follow.

        Its own style sheet keeps the palette's changes from reaching it: the window tells it."""
        if is_dark(self) != self._dark:
            self._style()
            self._rendered = None
            self._stream = None
            self._render()

    def _style(self) -> None:
        self._dark = dark = is_dark(self)
        colours = {
            "user": ("#2b3350", "#e9edff") if dark else ("#eef1ff", "#24306b"),
            "assistant": ("#25272d", "#e6e6e6") if dark else ("#ffffff", "#1f2328"),
            "prompt": ("#2f2a1f", "#f0e6cc") if dark else ("#fff8e6", "#5b4300"),
            "notice": ("#3a2325", "#ffd7d7") if dark else ("#fff0f0", "#8a1f1f"),
            "info": ("#2a2c31", "#b9bec7") if dark else ("#f3f4f6", "#4b5260"),
            "app": ("#1f3330", "#d2f0ea") if dark else ("#eafaf6", "#15524a"),
        }[self.role]
        self.setStyleSheet(
            f"#{self.objectName()} {{ background: {colours[0]}; border: 1px solid rgba(127,127,127,60);"
            f" border-radius: 8px; }} QLabel {{ color: {colours[1]}; }}"
        )

    @property
    def text(self) -> str:
        return self._text

    def add_attachments(self, refs: Sequence[ResourceRef]) -> list[AttachmentChip]:
        """Resources sent with the message, as chips under its text."""
        if self._chips is None:
            row = QWidget()
            self._chips = FlowLayout(row)
            self._layout.addWidget(row)
        chips = [AttachmentChip(ref, removable=False) for ref in refs]
        for chip in chips:
            self._chips.addWidget(chip)
        self.body.setVisible(bool(self._text))
        return chips

    def set_actions(self, actions: Sequence[tuple[str, str, Callable[[], object]]]) -> None:
        """Buttons under the message, each (label, tooltip, what it does); none clears them."""
        if self._actions_row is not None:
            self._actions_row.hide()
            self._actions_row.deleteLater()
            self._actions_row = None
        self.action_buttons = {}
        if not actions:
            return
        self._actions_row = QWidget()
        row = QHBoxLayout(self._actions_row)
        row.setContentsMargins(0, 2, 0, 0)
        row.addStretch(1)
        for label, tip, act in actions:
            button = QPushButton(label)
            button.setFlat(True)
            button.setToolTip(tip)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _=False, act=act: act())
            row.addWidget(button)
            self.action_buttons[label] = button
        self._layout.addWidget(self._actions_row)

    def mark_replaced(self) -> None:
        """The message was replaced (retried, regenerated, edited): it stays, greyed and saying so."""
        self.set_actions([])
        if _TITLES[self.role]:
            self.header.setText(f"{self.header.text()} · replaced")
        self.setEnabled(False)

    def set_text(self, text: str) -> None:
        """Show `text` instead, rendered whole."""
        self._text = text
        self._rendered = None
        self._render()

    def append(self, delta: str) -> None:
        self._text += delta
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Render now (end of stream), instead of waiting for the throttle."""
        self._timer.stop()
        self._render()

    def _render(self) -> None:
        if self._rendered == self._text:
            return  # e.g. the end-of-stream flush right after a throttled render
        # Appended text streams in; a new text, or one in another palette, is rendered from the start.
        grown = self._rendered is not None and self._text.startswith(self._rendered)
        self._rendered = self._text
        dark = is_dark(self)
        if not grown or (self._stream is not None and self._stream.dark != dark):
            self._stream = None
        if grown and self._stream is None:
            self._stream = _Stream(self.body, dark)
        code = self._stream.show(self._text) if self._stream is not None else None
        if code is None:
            rendered = render_markdown(self._text, dark=dark)
            code = rendered.code_blocks
            self.body.setHtml(rendered.html)
        self._code = code

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == "copy":
            index = int(url.path() or url.toString().split(":", 1)[1])
            if 0 <= index < len(self._code):
                QGuiApplication.clipboard().setText(self._code[index])
        elif url.scheme() in WEB_SCHEMES:
            self.web_link_requested.emit(url.toString())

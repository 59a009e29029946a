"""One chat message rendered as markdown; a streamed answer is updated at most every 50 ms, at its end.

A message set at once is rendered whole. While an answer streams, its finished blocks are rendered
and added once and only the open block at its end is rendered again (`markdown_blocks`,
`streamed_document`), so an update costs the same at the 2,000th token as at the 20th.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Final, Literal

from PySide6.QtCore import QChildEvent, QEvent, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QEnterEvent, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QFrame,
    QGraphicsOpacityEffect,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.resource_ref import ResourceRef
from desktop_app.qt_kit.action_icon import MESSAGE_ICON, give_icon
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.layout_widgets import widgets_in
from desktop_app.qt_kit.theme import tokens, type_scale
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.qt_kit.web_links import WEB_SCHEMES
from desktop_app.ui.conversation.attachment_chip import AttachmentChip
from desktop_app.ui.conversation.bubble_look import ACTION_NAME, BOX_NAME, HEADER_NAME, USER_WIDTH, bubble_sheet
from desktop_app.ui.conversation.markdown_html import render_markdown
from desktop_app.ui.conversation.message_body import AutoHeightBrowser, MessageStream, is_dark

Role = Literal["user", "assistant", "prompt", "notice", "info", "app"]
"""`notice` is for failures (red); `info` for neutral news such as "Stopped."; `app` for an MCP App's words."""
_TITLES = {"user": "You", "assistant": "Assistant", "prompt": "Prompt", "notice": "", "info": "", "app": "App"}
_ACTION_ICONS: Final = {
    "Copy": "copy",
    "Edit": "pencil",
    "Regenerate": "refresh-cw",
    "Retry": "rotate-cw",
    "What the model got": "receipt-text",
}
"""Each action's icon, by its label: the bubble's own and the ledger's link another part of the window adds."""


class MessageBubble(QFrame):
    """A message with a role header; `append` is cheap to call for every streamed token.

    Its actions (Copy, and what the turn offers: Edit, Regenerate, Retry; the ledger's link) sit in
    rows under the text, drawn only while the message is hovered or one of them has the keyboard's
    focus: they stay in the tab order and keep their names, so the keyboard reaches them all the time.
    """

    web_link_requested = Signal(str)  # a link to a web page (or a mail address) was clicked

    def __init__(self, role: Role, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.setObjectName(f"{role}Message")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._text = text
        self._rendered: str | None = None
        self._code: tuple[str, ...] = ()
        self._stream: MessageStream | None = None
        self._dark = False
        self._natural_width = 0
        """A user's message: its text's width unwrapped, which the bubble shrinks to."""
        self.header = QLabel(_TITLES[role])
        self.header.setObjectName(HEADER_NAME)
        self.body = AutoHeightBrowser()
        self.body.anchorClicked.connect(self._on_link)
        self._outer = QVBoxLayout(self)
        """The text's box, then the actions' row: under the box, outside it, for the user's messages."""
        self._outer.setSpacing(SPACE.xs)
        self.box: QFrame | None = None
        """A user's message: the raised bubble its text is in."""
        if role == "user":
            self.box = QFrame()
            self.box.setObjectName(BOX_NAME)
            self._outer.setContentsMargins(0, 0, 0, 0)
            self._outer.addWidget(self.box)
            layout = QVBoxLayout(self.box)
        else:
            layout = self._outer
        layout.setContentsMargins(
            *((12, 8, 12, 8) if self.box else (4, 2, 4, 2) if role == "assistant" else (10, 6, 10, 6))
        )
        layout.setSpacing(2)
        if _TITLES[role]:
            layout.addWidget(self.header)
        layout.addWidget(self.body)
        self._layout = layout
        """The text's parts: header, body, attached resources."""
        self._chips: FlowLayout | None = None
        self._chips_row: QWidget | None = None
        self.action_buttons: dict[str, QPushButton] = {}
        """What can be done with the message now (Edit, Regenerate, Retry), by label."""
        self._actions_row: QWidget | None = None
        self.copy_button: QPushButton | None = None
        """Copy the message's text (its Markdown): on the user's messages and the answers."""
        self._hovered = False
        self._focused = False
        if role == "user":
            self.setMaximumWidth(USER_WIDTH)
        if role in ("user", "assistant"):
            self.copy_button = self._action_button("Copy", "Copy this message's text", self.copy_text)
            self._actions().addWidget(self.copy_button)
        self._style()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(50)
        self._timer.timeout.connect(self._render)
        self._render()
        self._watching = True
        self._reveal()

    def follow_theme(self) -> None:
        """The theme changed (Settings, or the system's): the bubble's colours and its text follow.

        Its own style sheet keeps the palette's changes from reaching it: the window tells it."""
        if is_dark(self) != self._dark:
            self._style()
            self._rendered = None
            self._stream = None
            self._render()

    def _style(self) -> None:
        self._dark = is_dark(self)
        self.setStyleSheet(bubble_sheet(self.role, self.objectName(), tokens(self.parentWidget()), type_scale()))

    @property
    def text(self) -> str:
        return self._text

    def copy_text(self) -> None:
        """Put the message's text on the clipboard, as written (Markdown)."""
        QGuiApplication.clipboard().setText(self._text)

    def add_attachments(self, refs: Sequence[ResourceRef]) -> list[AttachmentChip]:
        """Resources sent with the message, as chips under its text."""
        if self._chips is None:
            self._chips_row = row = QWidget()
            self._chips = FlowLayout(row)
            self._layout.insertWidget(self._layout.indexOf(self.body) + 1, row)
        chips = [AttachmentChip(ref, removable=False) for ref in refs]
        for chip in chips:
            self._chips.addWidget(chip)
        self.body.setVisible(bool(self._text))
        self.updateGeometry()
        return chips

    def _action_button(self, label: str, tip: str, act: Callable[[], object]) -> QPushButton:
        button = QPushButton(label)
        button.setObjectName(ACTION_NAME)
        button.setFlat(True)
        button.setToolTip(tip)
        button.setAccessibleName(label)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(lambda _=False, act=act: act())
        _with_icon(button)
        return button

    def _actions(self) -> QHBoxLayout:
        """The row of action buttons under the text, made on first use."""
        if self._actions_row is None:
            self._actions_row = QWidget()
            row = QHBoxLayout(self._actions_row)
            row.setContentsMargins(0, 2, 0, 0)
            row.setSpacing(SPACE.s)
            row.addStretch(1)
            self._outer.addWidget(self._actions_row)
        layout = self._actions_row.layout()
        assert isinstance(layout, QHBoxLayout)
        return layout

    def set_actions(self, actions: Sequence[tuple[str, str, Callable[[], object]]]) -> None:
        """Buttons under the message, each (label, tooltip, what it does), before Copy; none clears them."""
        for button in self.action_buttons.values():
            button.hide()
            button.deleteLater()
        self.action_buttons = {}
        if not actions and self._actions_row is not None and self.copy_button is None:
            self._actions_row.hide()
            self._actions_row.deleteLater()
            self._actions_row = None
        if not actions:
            return
        row = self._actions()
        for label, tip, act in actions:
            button = self._action_button(label, tip, act)
            row.insertWidget(row.count() - (self.copy_button is not None), button)
            self.action_buttons[label] = button
        self._order_tabs()
        self.updateGeometry()

    def _order_tabs(self) -> None:
        """Tab goes through the actions in the order they are drawn, left to right."""
        layout = self._actions_row.layout() if self._actions_row is not None else None
        buttons = widgets_in(layout) if layout is not None else []
        for first, second in itertools.pairwise(buttons):
            QWidget.setTabOrder(first, second)

    # -- shown on hover or focus ----------------------------------------------------------------

    def set_focused(self, focused: bool) -> None:
        """The keyboard's focus came into the message (an action button) or left it."""
        if focused != self._focused:
            self._focused = focused
            self._reveal()

    def enterEvent(self, event: QEnterEvent) -> None:
        super().enterEvent(event)
        self._hovered = True
        self._reveal()

    def leaveEvent(self, event: QEvent) -> None:
        super().leaveEvent(event)
        self._hovered = False
        self._reveal()

    def childEvent(self, event: QChildEvent) -> None:
        super().childEvent(event)
        # A row another part of the window adds (the ledger's link) is an action too: drawn like the others.
        # `child()` last: a child still being built (the layout, in __init__) is a bare QObject to PySide, which
        # then wraps it by trying every QObject class it knows, realising ~80 of them (20 ms, the first time).
        if getattr(self, "_watching", False) and event.added() and event.child().isWidgetType():
            QTimer.singleShot(0, self, self._reveal)

    @property
    def actions_shown(self) -> bool:
        """Whether the action rows are drawn now (hovered or focused); they are in the tab order either way."""
        return self._hovered or self._focused

    def _reveal(self) -> None:
        self._adopt()
        opacity = 1.0 if self.actions_shown else 0.0
        row = self._actions_row
        if row is None:
            return
        effect = row.graphicsEffect()
        if not isinstance(effect, QGraphicsOpacityEffect):
            effect = QGraphicsOpacityEffect(row)
            row.setGraphicsEffect(effect)
        if effect.opacity() != opacity:
            effect.setOpacity(opacity)

    def _adopt(self) -> None:
        """Buttons another part of the window put under the text in a row of their own (the ledger's
        link) join the actions' row: one row, shown and hidden with the others."""
        mine = (self.box, self.header, self.body, self._chips_row, self._actions_row)
        for row in reversed(widgets_in(self._outer)):
            if row in mine or not row.isVisibleTo(self):
                continue
            buttons = row.findChildren(QAbstractButton, options=Qt.FindChildOption.FindDirectChildrenOnly)
            for button in buttons:
                _with_icon(button)
                self._actions().insertWidget(1, button)
            if buttons:
                row.hide()
                self._order_tabs()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if self.role != "user":
            return hint
        # A user's message is as wide as its text (up to its maximum), not as wide as the column.
        margins = self._layout.contentsMargins()
        parts = [self._natural_width if self.body.isVisibleTo(self) else 0, self.header.sizeHint().width()]
        parts += [self._chips_row.sizeHint().width()] if self._chips_row is not None else []
        text = max(parts) + margins.left() + margins.right()
        actions = self._actions_row.sizeHint().width() if self._actions_row is not None else 0
        hint.setWidth(min(USER_WIDTH, max(text, actions)))
        return hint

    # -- the text -------------------------------------------------------------------------------

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
            self._stream = MessageStream(self.body, dark)
        code = self._stream.show(self._text) if self._stream is not None else None
        if code is None:
            rendered = render_markdown(self._text, dark=dark)
            code = rendered.code_blocks
            self.body.setHtml(rendered.html)
        self._code = code
        if self.role == "user":
            self._natural_width = _natural_width(self.body)
            self.updateGeometry()

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == "copy":
            index = int(url.path() or url.toString().split(":", 1)[1])
            if 0 <= index < len(self._code):
                QGuiApplication.clipboard().setText(self._code[index])
        elif url.scheme() in WEB_SCHEMES:
            self.web_link_requested.emit(url.toString())


def _with_icon(button: QAbstractButton) -> None:
    """Draw the action's icon beside its label (one it already has is kept)."""
    name = _ACTION_ICONS.get(button.text())
    if name is None or not button.icon().isNull():
        return
    give_icon(button, name, MESSAGE_ICON)
    if isinstance(button, QToolButton):
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)


def _natural_width(browser: QTextBrowser) -> int:
    """The width `browser`'s text takes unwrapped (a short message's bubble is no wider)."""
    scratch = browser.document().clone()
    scratch.setTextWidth(-1)
    return math.ceil(scratch.idealWidth() + 2 * scratch.documentMargin()) + 4

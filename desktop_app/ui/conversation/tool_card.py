"""A tool call in the conversation, one card from question to result.

The card shows what the tool is (title, description, the server's claims about it), then,
while the call waits for the user, the approval panel inside it (the arguments, editable, and
the answers), and afterwards the arguments that ran, who decided, and what came back.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, Final

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QIcon, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.chat.events import ToolCallStarted, ToolDecision
from desktop_app.core.content import ResourceContent, human_size
from desktop_app.core.trust import ToolHints
from desktop_app.qt_kit.server_icon_cache import CARD_SIDE
from desktop_app.qt_kit.theme import muted, themed, tokens, type_scale
from desktop_app.qt_kit.tokens import READABLE_WIDTH, SPACE, Palette
from desktop_app.ui.conversation.approval_words import decision_line, hint_badges
from desktop_app.ui.widgets.bordered_frame import CALM_BORDER, BorderedFrame
from desktop_app.ui.widgets.fitted_text import FittedText
from desktop_app.ui.widgets.plain_text import plain_label, set_plain_tooltip
from resources_ui.viewers.image_viewer import decode_thumbnail

DESCRIPTION_CHARS: Final = 280
"""Longer descriptions are cut in the card (the whole text is in the tooltip)."""
ARGUMENT_LINES: Final = 24
"""Arguments are shown whole up to this many lines, then scroll."""


class CallState(StrEnum):
    AWAITING = "awaiting approval"
    ASKING = "waiting for your answer"
    RUNNING = "running"
    DONE = "done"
    ERROR = "error"
    DENIED = "denied"
    CANCELLED = "cancelled"
    STOPPED = "stopped"
    """The turn stopped waiting, but the call had become a task that goes on (its row says so)."""
    INTERRUPTED = "interrupted"
    """The app stopped (crashed, was killed) before the call finished."""


_BADGE: Final = {
    CallState.AWAITING: "caution",
    CallState.ASKING: "caution",
    CallState.RUNNING: "accent",
    CallState.DONE: "success",
    CallState.ERROR: "danger",
    CallState.DENIED: "muted",
    CallState.CANCELLED: "muted",
    CallState.STOPPED: "muted",
    CallState.INTERRUPTED: "caution",
}
"""Each state's badge: its token's colour filled, the label in `on_accent` (4.5:1 on every one of them)."""


def badge_sheet(state: CallState, p: Palette) -> str:
    fill = p.colours()[_BADGE[state]]
    return (
        f"background: {fill}; color: {p.on_accent}; border-radius: {SPACE.radius - 2}px;"
        f" padding: 1px {SPACE.m - 2}px; font-size: {type_scale().small}pt; font-weight: 600;"
    )


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class ToolCard(BorderedFrame):
    """Header (title · tool · server · state), description, claims, arguments, decision and result."""

    open_content = Signal(object)  # ResourceContent: show it in the viewer pane

    def __init__(
        self,
        call_id: str,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        parent: QWidget | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        hints: ToolHints | None = None,
        trusted: bool = False,
        icon: QIcon | None = None,
    ):
        super().__init__(parent)
        self.call_id = call_id
        self.hints = hints or ToolHints()
        self.setObjectName("toolCard")
        on = f"on {server}" if server else ""  # a card from history knows no server
        where = " · ".join(part for part in (tool if title else "", on) if part)
        self.title = QLabel(f"<b>{_escape(title or tool)}</b>")
        self.title.setWordWrap(True)  # a long title wraps; one that fits in a third of the column does not
        bold = QFont(self.title.font())
        bold.setBold(True)
        natural = QFontMetrics(bold).horizontalAdvance(title or tool) + 2
        self.title.setMinimumWidth(min(natural, READABLE_WIDTH // 3))
        self.where = muted(plain_label(where))
        self.where.setWordWrap(True)
        self.where.setVisible(bool(where))
        self.badge = QLabel()
        self.progress = plain_label()  # a server's progress message: its words, wrapped in a narrow column
        self.progress.setWordWrap(True)
        muted(self.progress)
        self.server_icon = QLabel()  # the tool's own icon (else its server's), checked and decoded once
        self.server_icon.setFixedSize(CARD_SIDE, CARD_SIDE)
        self.set_icon(icon)
        header = QHBoxLayout()
        header.setSpacing(SPACE.m)
        header.addWidget(self.server_icon, 0, Qt.AlignmentFlag.AlignTop)
        header.addWidget(self.title)
        header.addWidget(self.where, 1)
        header.addWidget(self.progress)
        header.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        self.description = plain_label()
        self.description.setWordWrap(True)
        muted(self.description)
        if description:
            cut = description if len(description) <= DESCRIPTION_CHARS else description[:DESCRIPTION_CHARS] + "…"
            self.description.setText(cut)
            set_plain_tooltip(self.description, description if cut != description else "")
        self.description.setVisible(bool(description))
        self.claims = hint_badges(server, hints, trusted)
        self.slot = QVBoxLayout()
        self.slot.setContentsMargins(0, 0, 0, 0)
        self.arguments = FittedText(pretty_json(arguments), ARGUMENT_LINES)
        self.decision = QLabel()
        self.decision.setObjectName("decisionLine")
        self.decision.setWordWrap(True)
        muted(self.decision)
        self.decision.hide()
        self.result_toggle = QToolButton()
        self.result_toggle.setText("Result")
        self.result_toggle.setCheckable(True)
        self.result_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.result_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.result_toggle.setVisible(False)
        self.result_box = QWidget()
        self.result_layout = QVBoxLayout(self.result_box)
        self.result_layout.setContentsMargins(0, 0, 0, 0)
        self.result_box.setVisible(False)
        self.result_toggle.toggled.connect(self._toggle_result)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(SPACE.l, SPACE.m + 2, SPACE.l, SPACE.m + 2)
        layout.setSpacing(SPACE.s + 2)
        layout.addLayout(header)
        layout.addWidget(self.description)
        if self.claims is not None:
            layout.addWidget(self.claims)
        layout.addLayout(self.slot)
        layout.addWidget(self.arguments)
        layout.addWidget(self.decision)
        self.task_slot = QVBoxLayout()
        self.task_slot.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.task_slot)
        self.app_slot = QVBoxLayout()
        self.app_slot.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.app_slot)
        layout.addWidget(self.result_toggle)
        layout.addWidget(self.result_box)
        self.panel: QWidget | None = None
        self.task: QWidget | None = None
        """The status row of the task this call became, if it became one."""
        self.still: QWidget | None = None
        self.settled = False
        """A decision or a result arrived: a later call that reuses this id gets a new card."""
        self.state = CallState.RUNNING
        self.set_state(CallState.RUNNING)

    @classmethod
    def for_call(cls, event: ToolCallStarted, icon: QIcon | None = None) -> ToolCard:
        assert event.server is not None and event.tool is not None
        return cls(
            event.call_id,
            event.server,
            event.tool,
            event.arguments,
            title=event.title,
            description=event.description,
            hints=event.hints,
            trusted=event.trusted,
            icon=icon,
        )

    def set_icon(self, icon: QIcon | None) -> None:
        """Show the server's icon for this tool; None: no icon (a card from history, a tool without one)."""
        self.server_icon.setPixmap(icon.pixmap(CARD_SIDE, CARD_SIDE) if icon is not None else QPixmap())
        self.server_icon.setVisible(icon is not None)

    def paintEvent(self, event: QPaintEvent) -> None:
        """The card sits on the raised surface (painted: a sheet on the card would polish all it holds)."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(tokens(self).raised))
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), SPACE.radius, SPACE.radius)
        painter.end()
        super().paintEvent(event)

    def set_state(self, state: CallState) -> None:
        self.state = state
        self.badge.setText(f" {state.value} ")
        themed(self.badge, lambda p: badge_sheet(state, p))
        if state is not CallState.RUNNING:
            self.progress.clear()

    # -- the approval inside the card ------------------------------------------------------

    def embed(self, panel: QWidget) -> None:
        """Show an approval panel in place of the arguments until it is answered or withdrawn."""
        self.release()
        self.panel = panel
        self.slot.addWidget(panel)
        self.arguments.hide()
        self.set_state(CallState.AWAITING)

    def release(self) -> None:
        """The question ended: the panel goes, the arguments are back (the decision line says the rest)."""
        if self.panel is None:
            return
        self.panel.hide()
        self.slot.removeWidget(self.panel)
        self.panel.deleteLater()
        self.panel = None
        self.arguments.show()
        self.set_border(CALM_BORDER, 1)
        if self.state is CallState.AWAITING:
            self.set_state(CallState.RUNNING)

    def apply_decision(self, event: ToolDecision) -> None:
        """Show who settled the call and the arguments that run (the user's edits, not the proposal)."""
        self.release()
        self.settled = True
        self.set_arguments(event.arguments)
        self.decision.setText(decision_line(event))
        self.decision.show()
        if not event.allowed:
            self.set_state(CallState.DENIED)

    def set_arguments(self, arguments: dict[str, Any]) -> None:
        self.arguments.setPlainText(pretty_json(arguments))

    def show_task(self, row: QWidget) -> None:
        """Show the task this call became inside the card, under the decision (a later task replaces it)."""
        if self.task is row:
            return
        if self.task is not None:
            self.task_slot.removeWidget(self.task)
            self.task.hide()
            self.task.deleteLater()
        self.task = row
        self.task_slot.addWidget(row)

    def show_app(self, widget: QWidget) -> None:
        """Show `widget` in the card under the arguments (the call's MCP App view)."""
        self.app_slot.addWidget(widget)

    def show_still(self, still: QWidget) -> None:
        """In a reopened chat: the app view's last picture where the view was (a later one replaces it)."""
        if self.still is not None:
            self.app_slot.removeWidget(self.still)
            self.still.hide()
            self.still.deleteLater()
        self.still = still
        self.app_slot.addWidget(still)

    def set_progress(self, text: str) -> None:
        self.progress.setText(text)

    # -- the result ------------------------------------------------------------------------

    def set_result(
        self,
        text: str,
        *,
        is_error: bool,
        denied: bool,
        structured: Any,
        binaries: list[ResourceContent],
        cancelled: bool = False,
        interrupted: bool = False,
    ) -> None:
        self.release()
        self.settled = True
        if cancelled and self.task is not None:
            self.set_state(CallState.STOPPED)  # not "cancelled": the task row under it still runs
            return
        if cancelled:
            self.set_state(CallState.CANCELLED)
            # No decision yet: the turn was stopped while the call waited for the user, so it never ran.
            self.decision.setText(self.decision.text() or "Stopped before you answered; it did not run")
            self.decision.show()
            return
        if interrupted:  # the app's own words, not a payload: plain, wrapped text, shown open
            self.set_state(CallState.INTERRUPTED)
            note = plain_label(text)
            note.setWordWrap(True)
            self.result_layout.addWidget(note)
            self.result_toggle.setVisible(True)
            self.result_toggle.setChecked(True)
            return
        self.set_state(CallState.DENIED if denied else CallState.ERROR if is_error else CallState.DONE)
        if denied:
            return  # the decision line says it all; the model's copy of the refusal is no news to the user
        shown = pretty_json(structured) if structured is not None else text
        self.result_layout.addWidget(FittedText(shown, 16))
        for content in binaries:
            self.result_layout.addWidget(self._binary_row(content))
        self.result_toggle.setVisible(True)
        if is_error:
            self.result_toggle.setChecked(True)

    def _binary_row(self, content: ResourceContent) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        if content.mime_type and content.mime_type.startswith("image/") and content.data:
            # Decoded at thumbnail size, and not at all past the shared pixel limit (a tool's bomb).
            thumb = decode_thumbnail(content.data, 240, 160)
            if thumb is not None:
                label = QLabel()
                label.setPixmap(QPixmap.fromImage(thumb))
                layout.addWidget(label)
        if content.data:
            layout.addWidget(plain_label(f"{content.mime_type or 'binary'} · {human_size(content.size)}"))
            button = QPushButton("Open")
            button.clicked.connect(lambda: self.open_content.emit(content))
            layout.addWidget(button)
        else:
            kept = plain_label(f"{content.mime_type or 'binary'} (not kept in the history)")
            muted(kept)
            layout.addWidget(kept)
        layout.addStretch(1)
        return row

    def _toggle_result(self, shown: bool) -> None:
        self.result_box.setVisible(shown)
        self.result_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)


class ResourceChip(QPushButton):
    """A light mark that the model read a resource; clicking opens it in the viewer."""

    def __init__(self, uri: str, size: int | None, truncated: bool, parent: QWidget | None = None) -> None:
        size_text = f", {human_size(size)}" if size is not None else ""
        cut = " (cut at the safety cap)" if truncated else ""
        super().__init__(f"read {uri}{size_text}{cut}", parent)
        self.uri = uri
        self.setObjectName("resourceChip")
        self.setFlat(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        themed(
            self,
            lambda p: (
                f"#resourceChip {{ border: 1px solid {p.border}; border-radius: {SPACE.radius + 2}px;"
                f" padding: {SPACE.xs}px {SPACE.m + 2}px; color: {p.accent}; background: {p.raised};"
                " text-align: left; }"
                f" #resourceChip:hover, #resourceChip:focus {{ border-color: {p.accent}; }}"
            ),
        )

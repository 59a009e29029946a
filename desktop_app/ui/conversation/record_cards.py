"""What a reopened chat shows of what happened besides its messages and tool calls: the question cards
the user answered, an app view's own tool calls and what they returned, and a still of each app view.

Every word here was kept from a server, an app or a card: plain text, never markup.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Final

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QVBoxLayout, QWidget

from desktop_app.core.chat.events import AppToolRecord, AppToolResult, AppViewRecord, QuestionRecord
from desktop_app.qt_kit.theme import muted, themed
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.widgets.plain_text import plain_label
from resources_ui.viewers.image_viewer import decode_thumbnail

STILL_WIDTH: Final = 640
"""A still is kept at most this wide (about 100 KB as PNG)."""
STILL_NOTE: Final = "A still of the app as it was last shown: the app itself no longer runs here."
NO_STILL: Final = "An app was shown here; it no longer runs, and no still of it was kept."
_DECIDED: Final = {
    "user": "allowed by you",
    "rule": "allowed by your rule",
    "server_rule": "allowed: a read-only tool of a trusted server",
    "chat": "allowed for this chat",
}


def _wrapped(text: str, quiet: bool = False) -> QLabel:
    """A selectable, wrapped label; `quiet`: in the theme's muted colour."""
    label = plain_label(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return muted(label) if quiet else label


class QuestionRecordCard(QFrame):
    """A question card as it ended: what was asked, by whom, the details and the outcome."""

    def __init__(self, record: QuestionRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record = record
        self.setObjectName("questionRecord")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        themed(
            self,
            lambda p: (
                f"#questionRecord {{ background: {p.raised}; border: 1px solid {p.border};"
                f" border-radius: {SPACE.radius}px; }}"
            ),
        )
        title = _wrapped(record.title)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        layout.addWidget(title)
        layout.addWidget(_wrapped(f"Asked by {record.server}", quiet=True))
        if record.details:
            rows = QFormLayout()
            rows.setContentsMargins(0, 2, 0, 2)
            rows.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            for label, text in record.details:
                rows.addRow(_wrapped(label, quiet=True), _wrapped(text))
            layout.addLayout(rows)
        self.outcome = _wrapped(record.outcome, quiet=True)
        layout.addWidget(self.outcome)


def app_call_line(record: AppToolRecord) -> QLabel:
    """One line under the tool card: the app called a tool, with what, and how that was settled."""
    settled = _DECIDED.get(record.decided_by, "allowed") if record.allowed else "declined"
    reason = f" ({record.reason})" if record.reason and not record.allowed else ""
    arguments = json.dumps(record.arguments, ensure_ascii=False)
    if len(arguments) > 300:
        arguments = arguments[:299] + "…"
    line = _wrapped(f"The app {record.app} called {record.tool} on {record.server} with {arguments}: {settled}{reason}")
    line.setObjectName("appCallRecord")
    themed(line, lambda p: f"#appCallRecord {{ color: {p.muted}; padding: 0px {SPACE.l}px; }}")
    return line


def app_result_line(record: AppToolResult) -> QLabel:
    """One line under the app's call: what the tool returned (or why it failed), as the chat kept it."""
    ended = "failed" if record.is_error else "returned"
    line = _wrapped(f"{record.tool} {ended}: {record.text}")
    line.setObjectName("appCallResult")
    themed(
        line,
        lambda p: (
            f"#appCallResult {{ color: {p.danger if record.is_error else p.muted};"
            f" padding: 0px {SPACE.l}px 0px {SPACE.xxl + SPACE.s}px; }}"
        ),
    )
    return line


def record_widget(record: QuestionRecord | AppToolRecord | AppToolResult) -> QWidget:
    """How a kept question card, app call or app call's result is shown in the chat."""
    if isinstance(record, QuestionRecord):
        return QuestionRecordCard(record)
    return app_call_line(record) if isinstance(record, AppToolRecord) else app_result_line(record)


def still_png(widget: QWidget) -> str:
    """A picture of `widget` as shown now, at most `STILL_WIDTH` wide, as base64 PNG ("" when it has none)."""
    picture = widget.grab()
    if picture.isNull() or picture.width() <= 1:
        return ""
    if picture.width() > STILL_WIDTH:
        picture = picture.scaledToWidth(STILL_WIDTH, Qt.TransformationMode.SmoothTransformation)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    picture.save(buffer, "PNG")
    return base64.b64encode(bytes(data.data())).decode("ascii")


class AppStill(QWidget):
    """In a reopened chat, where the app view was: its last picture (a still, and it says so)."""

    def __init__(self, record: AppViewRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("appStill")
        self.picture = QLabel()
        try:
            data = base64.b64decode(record.snapshot, validate=True)
        except (binascii.Error, ValueError):
            data = b""
        image = decode_thumbnail(data, STILL_WIDTH, 4 * STILL_WIDTH) if data else None
        loaded = image is not None
        if image is not None:
            self.picture.setPixmap(QPixmap.fromImage(image))
        self.picture.setVisible(loaded)
        self.note = _wrapped(f"{STILL_NOTE} ({record.resource_uri})" if loaded else NO_STILL, quiet=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.picture)
        layout.addWidget(self.note)

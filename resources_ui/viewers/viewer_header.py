"""The viewer's header: the resource's name, Reload, Attach and Close, its URI, type and size, a note, its parts.

It only draws what the pane tells it and says what was pressed. A resource's name, URI and note are
the server's words: plain text, never guessed to be markup. Type and size are never cut; only a URI
longer than the whole width is shortened, in the middle, with the whole URI in its tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.content import ResourceContent, human_size
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.qt_kit.action_icon import give_icon, icon_only
from desktop_app.qt_kit.elided_label import ElidedLabel

SEPARATOR = " · "
CLOSE_TIP = "Close — the chat gets the viewer's room back"


class ViewerHeader(QWidget):
    """Name and buttons on one line, the URI and its type and size on the next, then a note and the parts."""

    reload_requested = Signal()  # Reload was pressed
    attach_requested = Signal()  # Attach was pressed
    close_requested = Signal()  # Close was pressed: nothing to show, the viewer gives its room back
    part_chosen = Signal(int)  # the user picked another part of a multi-part resource

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Elided, so a long name or URI never widens the dock (the window keeps the user's layout).
        self.title = ElidedLabel(mode=Qt.TextElideMode.ElideRight)
        self.title.setObjectName("viewerTitle")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.title.setFont(font)
        self.meta = ElidedLabel()
        self.meta.setObjectName("viewerMeta")
        self.details = QLabel()
        self.details.setObjectName("viewerDetails")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.hide()
        for label in (self.title, self.meta, self.details, self.note):
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.part_box = QComboBox()
        self.part_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.part_box.setMinimumContentsLength(14)
        self.part_box.hide()
        self.part_box.activated.connect(self.part_chosen)
        self.reload_button = QPushButton("Reload")
        self.reload_button.clicked.connect(self.reload_requested)
        give_icon(self.reload_button, "refresh-cw")
        self.attach_button = QPushButton("Attach")
        self.attach_button.setToolTip("Attach this resource to the conversation")
        self.attach_button.clicked.connect(self.attach_requested)
        give_icon(self.attach_button, "paperclip")
        self.close_button = QToolButton()
        self.close_button.setObjectName("viewerClose")
        self.close_button.setAutoRaise(True)
        icon_only(self.close_button, "x", "Close", CLOSE_TIP)
        self.close_button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # reachable with Tab, like the buttons
        self.close_button.clicked.connect(self.close_requested)

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.part_box)
        top.addWidget(self.reload_button)
        top.addWidget(self.attach_button)
        top.addWidget(self.close_button)
        line = QHBoxLayout()  # the whole width: a URI is cut only when it must be
        line.setSpacing(0)
        self.meta.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)  # shrinks first
        line.addWidget(self.meta)
        line.addWidget(self.details)
        line.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(line)
        layout.addWidget(self.note)

    def show_ref(self, ref: ResourceRef | None) -> None:
        """What is about to be read: its name and URI (and its type, as listed), or nothing selected."""
        self.set_actionable(ref is not None)
        for button in (self.reload_button, self.attach_button, self.close_button):
            button.setVisible(ref is not None)  # with nothing to act on, the title has the row to itself
        if ref is None:
            self.title.setText("No resource selected")
            self._line("", "")
            self.set_note(None)
            self.set_parts([], 0)
            return
        self.title.setText(ref.name)
        self._line(ref.uri, ref.mime_type or "")

    def show_uri(self, uri: str) -> None:
        """Only a URI to say (a live view moved here from elsewhere)."""
        self._line(uri, "")
        self.set_note(None)
        self.set_parts([], 0)

    def describe(self, content: ResourceContent) -> None:
        """What was read: the URI, its (possibly sniffed) type and, unless it failed, its size."""
        details = [content.mime_essence or "unknown type"]
        if content.error is None:
            details.append(human_size(content.size))
        self._line(content.uri, SEPARATOR.join(details))

    def _line(self, uri: str, details: str) -> None:
        self.meta.setText(uri)
        self.details.setText(f"{SEPARATOR}{details}" if uri and details else details)

    def set_note(self, note: str | None) -> None:
        self.note.setText(note or "")
        self.note.setVisible(bool(note))

    def set_parts(self, labels: list[str], current: int) -> None:
        """The parts to choose from (shown only when there are several), without announcing a choice."""
        self.part_box.blockSignals(True)
        self.part_box.clear()
        self.part_box.addItems(labels)
        self.part_box.setCurrentIndex(current if labels else -1)
        self.part_box.blockSignals(False)
        self.part_box.setVisible(len(labels) > 1)

    def set_actionable(self, actionable: bool) -> None:
        """Reload and Attach work only while the resource's server is there."""
        self.reload_button.setEnabled(actionable)
        self.attach_button.setEnabled(actionable)

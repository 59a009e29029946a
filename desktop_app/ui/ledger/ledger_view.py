"""One request's ledger drawn: its parts as a stacked bar, then by section with their tokens, the
provider's figure beside the app's count, what was cut or capped, and the payload exactly as sent, copyable.

Everything shown came from a server, the model or the provider: it is drawn as plain text only
(item texts, plain labels, escaped tooltips), never as rich text. What each server whose content the
request carried says it is gets a line of its own, under the name the user gave that server and worded
as its claim.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.ledger.claims import SaidBy
from desktop_app.core.ledger.parts import SECTION_TITLES, Ledger, Section
from desktop_app.core.ledger.trace_view import RequestView
from desktop_app.qt_kit.action_icon import give_icon
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.ledger.parts_bar import PartsBar
from desktop_app.ui.widgets.plain_text import plain_label, set_plain_tooltip
from desktop_app.ui.widgets.plain_tooltips import PlainToolTips

COLUMNS = ("Part", "Tokens", "Share")
SAID_NOTE = "Each server's own claim, not checked: MCP Desk knows a server only by the name you gave it."


def said_text(said: Sequence[SaidBy]) -> str:
    """One line per server whose content the request carried and that said what it is."""
    return "\n".join(f"• {entry.line}" for entry in said)


def said_tip(said: Sequence[SaidBy]) -> str:
    sites = [
        f'"{entry.server}" gives the website {entry.claim.website_url}' for entry in said if entry.claim.website_url
    ]
    return "\n".join([SAID_NOTE, *sites])


def usage_line(ledger: Ledger) -> str:
    """The app's count beside the provider's figure, and how far apart they are."""
    counted = f"{ledger.counted:,} tokens by MCP Desk's count"
    reported = ledger.reported_prompt_tokens
    if reported is None:
        return f"{counted} · the provider reported no usage for this request"
    line = f"{counted} · the provider reported {reported:,}"
    difference = ledger.difference
    if difference is not None and reported == ledger.counted:
        line += " (the same)"
    elif difference is not None and abs(difference) < 0.001:
        line += " (less than 0.1% apart)"
    elif difference is not None:
        line += f" ({abs(difference):.1%} {'fewer' if difference > 0 else 'more'} by the app's count)"
    if ledger.agrees() is False:
        line += " — more apart than usual: the provider may bill what the app cannot see"
    return line


def request_label(request: RequestView, total: int) -> str:
    response = request.response or {}
    message = response.get("message") or {}
    calls = [str((c.get("function") or {}).get("name", "")) for c in message.get("tool_calls") or []]
    if response.get("error"):
        what = "ended: " + " ".join(str(response["error"]).split())[:80]
    elif calls:
        what = "the model called " + ", ".join(calls)
    elif request.response is None:
        what = "waiting for the answer"
    else:
        what = "the answer"
    return f"Request {request.number} of {total} — {what}"


class LedgerView(QWidget):
    """The ledger of one request of a turn; the selector shows the turn's other requests."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.requests: list[RequestView] = []
        self.selector = QComboBox()
        self.selector.setObjectName("ledgerRequest")
        self.selector.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.selector.currentIndexChanged.connect(self._show_index)
        self.model_label = plain_label()
        self.model_label.setObjectName("ledgerModel")
        self.usage = plain_label()
        self.usage.setObjectName("ledgerUsage")
        self.usage.setWordWrap(True)
        bold = self.usage.font()
        bold.setBold(True)
        self.usage.setFont(bold)
        self.parts = QTreeWidget()
        self.parts.setObjectName("ledgerParts")
        self.parts.setColumnCount(len(COLUMNS))
        self.parts.setHeaderLabels(list(COLUMNS))
        self.parts.setUniformRowHeights(True)
        self.parts.setAlternatingRowColors(True)
        header = self.parts.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        PlainToolTips(self.parts)
        self.bar = PartsBar()
        self.cuts_title = QLabel("Cut or capped")
        self.cuts_title.setFont(bold)
        self.cuts = plain_label()
        self.cuts.setObjectName("ledgerCuts")
        self.cuts.setWordWrap(True)
        self.cuts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.said_title = QLabel("What the servers in this request say they are")
        self.said_title.setFont(bold)
        self.said = plain_label()
        self.said.setObjectName("ledgerSaid")
        self.said.setWordWrap(True)
        self.said.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.said_note = plain_label(SAID_NOTE)
        self.said_note.setWordWrap(True)
        muted(self.said_note)
        self._show_said(())
        self.notes = plain_label()
        self.notes.setObjectName("ledgerNotes")
        self.notes.setWordWrap(True)
        muted(self.notes)
        self.payload = QPlainTextEdit()
        self.payload.setObjectName("ledgerPayload")
        self.payload.setReadOnly(True)
        self.payload.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.payload.setFont(mono)
        self.payload_where = plain_label()
        self.payload_where.setWordWrap(True)
        self.copy = QPushButton("Copy payload")
        self.copy.setObjectName("ledgerCopy")
        self.copy.setToolTip("Copy the request body as the provider received it (secrets left out)")
        self.copy.clicked.connect(self.copy_payload)
        give_icon(self.copy, "copy")
        self.tabs = QTabWidget()
        self.tabs.setObjectName("ledgerTabs")
        self.tabs.addTab(self._parts_tab(), "Parts and tokens")
        self.tabs.addTab(self._payload_tab(), "Payload as sent")
        top = QHBoxLayout()
        top.addWidget(self.selector)
        top.addStretch(1)
        top.addWidget(self.model_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(self.usage)
        layout.addWidget(self.tabs, 1)

    def _parts_tab(self) -> QWidget:
        """The bar of the parts over their table; what was cut and the notes below, scrolling when there are many."""
        below = QWidget()
        column = QVBoxLayout(below)
        column.setContentsMargins(2, 4, 2, 2)
        column.addWidget(self.cuts_title)
        column.addWidget(self.cuts)
        column.addWidget(self.said_title)
        column.addWidget(self.said)
        column.addWidget(self.said_note)
        column.addWidget(self.notes)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(below)
        self.below = below
        self.split = splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("ledgerSplit")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.parts)
        splitter.addWidget(scroll)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.bar)
        layout.addWidget(splitter)
        return tab

    def _payload_tab(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(6, 6, 6, 6)
        row = QHBoxLayout()
        row.addWidget(self.payload_where, 1)
        row.addWidget(self.copy)
        layout.addLayout(row)
        layout.addWidget(self.payload, 1)
        return tab

    # -- what is shown --------------------------------------------------------------------

    def show_requests(self, requests: Sequence[RequestView], current: int = -1) -> None:
        """Show the requests of a turn, starting with `requests[current]`."""
        self.requests = list(requests)
        self.selector.blockSignals(True)
        self.selector.clear()
        for request in self.requests:
            self.selector.addItem(request_label(request, len(self.requests)))
        self.selector.blockSignals(False)
        index = current % len(self.requests) if self.requests else -1
        self.selector.setCurrentIndex(index)
        self._show_index(index)

    def _show_index(self, index: int) -> None:
        request = self.requests[index] if 0 <= index < len(self.requests) else None
        self.show_request(request)

    def show_request(self, request: RequestView | None) -> None:
        ledger = None if request is None else request.ledger
        self.parts.clear()
        self.bar.set_ledger(ledger)
        if request is None or ledger is None:
            self.model_label.setText("")
            self.usage.setText("This request has no ledger yet: it is counted once the answer has come.")
            self.cuts.setText("")
            self.notes.setText("")
            self._show_said(())
        else:
            self.model_label.setText(ledger.model)
            self.usage.setText(usage_line(ledger))
            self._fill_parts(ledger)
            self.cuts.setText("\n".join(f"• {cut.text}" for cut in ledger.cuts) or "Nothing: every part went whole.")
            self.notes.setText(" ".join(ledger.notes))
            self._show_said(ledger.said)
            self._share_height()
        payload = None if request is None else request.payload
        if payload is None:
            self.payload.setPlainText("")
            self.payload_where.setText("Nothing reached the provider for this request.")
        else:
            self.payload.setPlainText(json.dumps(payload, indent=2, ensure_ascii=False))
            where = f" at {request.api_base}" if request is not None and request.api_base else ""
            self.payload_where.setText(f"The body the provider received{where}, after litellm's translation.")
        self.copy.setEnabled(payload is not None)

    def _show_said(self, said: Sequence[SaidBy]) -> None:
        """The servers' claims, when any server whose content went said what it is."""
        self.said.setText(said_text(said))
        set_plain_tooltip(self.said, said_tip(said) if said else "")
        for widget in (self.said_title, self.said, self.said_note):
            widget.setVisible(bool(said))

    def _fill_parts(self, ledger: Ledger) -> None:
        total = ledger.counted or 1
        for section in Section:
            parts = ledger.in_section(section)
            if not parts:
                continue
            tokens = sum(part.tokens for part in parts)
            head = _row([SECTION_TITLES[section], f"{tokens:,}", f"{tokens / total:.0%}"])
            font = head.font(0)
            font.setBold(True)
            for column in range(len(COLUMNS)):
                head.setFont(column, font)
            self.parts.addTopLevelItem(head)
            for part in parts:
                item = _row([part.label, f"{part.tokens:,}", f"{part.tokens / total:.1%}"])
                item.setToolTip(0, f"{part.label}\n\n{part.preview}" if part.preview else part.label)
                head.addChild(item)
            head.setExpanded(True)

    def _share_height(self) -> None:
        """The parts get the height their rows need (up to two thirds); what was cut gets the rest, no more
        than its lines need (what it would leave empty goes back to the parts)."""
        total = sum(self.split.sizes()) or self.split.height()
        rows = sum(1 + (top.childCount() if (top := self.parts.topLevelItem(i)) else 0) for i in range(3))
        wanted = rows * max(self.parts.sizeHintForRow(0), 1) + self.parts.header().height() + 8
        width = self.split.width()
        below = self.below.heightForWidth(width) if self.below.hasHeightForWidth() else -1
        below = below if below > 0 else self.below.sizeHint().height()  # the lines wrapped at the pane's width
        parts = max(min(wanted, total * 2 // 3), total - below)
        self.split.setSizes([parts, max(total - parts, 1)])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.parts.topLevelItemCount():
            self._share_height()

    def copy_payload(self) -> None:
        """The payload to the clipboard, as shown (it was scrubbed of secrets when it was recorded)."""
        QGuiApplication.clipboard().setText(self.payload.toPlainText())


def _row(texts: list[str]) -> QTreeWidgetItem:
    """A row of the parts tree, its figures right-aligned."""
    item = QTreeWidgetItem(texts)
    for column in (1, 2):
        item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item

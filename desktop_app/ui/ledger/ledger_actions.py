"""The window's way to what the model got: a "What the model got" link on each answer, and Export chat.

The links are put on the assistant's messages whenever the conversation settles (a turn ends,
another chat is opened); a click finds the request that produced that answer in the chat's trace
and opens its ledger. Export writes the chat's trace and a Markdown transcript where the user
chooses, in a worker thread.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Qt, QTimer, Signal, SignalInstance
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QMainWindow, QToolButton, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.trace_secrets import scrubber_for
from desktop_app.core.ledger.export import ChatToExport, Exported, export_chat
from desktop_app.core.ledger.store import LedgerStore
from desktop_app.qt_kit.theme import themed, type_scale
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.ledger.ledger_window import LedgerWindow

LINK_NAME = "ledgerLink"
LINK_TEXT = "What the model got"


class ChatOnScreen(Protocol):
    """The chat controller, as far as the ledger needs it."""

    @property
    def conversation(self) -> Conversation: ...

    @property
    def busy_changed(self) -> SignalInstance: ...

    @property
    def conversations_changed(self) -> SignalInstance: ...


def ledger_store(conversation: Conversation) -> LedgerStore | None:
    """Where `conversation`'s trace is kept; None for a chat that is not stored."""
    return None if conversation.store is None else LedgerStore.beside(conversation.store.path)


class LedgerActions(QObject):
    """Ledger links on the answers of `view`, and Export chat, for the chat `chat` shows."""

    sig_exported = Signal(object)
    """`Exported`: the files an export wrote."""
    sig_export_failed = Signal(str)
    """Why an export failed (a folder that cannot be written)."""

    def __init__(self, window: QWidget, view: ConversationView, chat: ChatOnScreen, bridge: CoreBridge) -> None:
        super().__init__(window)
        self._window = window
        self._view = view
        self._chat = chat
        self._bridge = bridge
        self.ledger_window: LedgerWindow | None = None
        # A pass after the turn's end: the answer's own rows are laid out first, not in the same stall.
        chat.busy_changed.connect(lambda busy: None if busy else QTimer.singleShot(0, self, self.refresh))
        chat.conversations_changed.connect(self.refresh)
        view.history_drawn.connect(self.refresh)
        self._linked: weakref.WeakSet[MessageBubble] = weakref.WeakSet()

    # -- the links ------------------------------------------------------------------------

    def answers(self) -> list[MessageBubble]:
        """The assistant's messages on screen, in order."""
        return [b for b in self._view.messages() if b.role == "assistant" and b.text]

    def refresh(self) -> None:
        """Put a link on every answer that has none yet (only for a chat whose trace is kept)."""
        if ledger_store(self._chat.conversation) is None:
            return
        for bubble in self.answers():
            if bubble not in self._linked:  # not a search of the bubble's widgets: a long chat has many
                self._linked.add(bubble)
                _add_link(bubble, lambda _=False, b=bubble: self.open_ledger(b))

    def open_ledger(self, bubble: MessageBubble) -> LedgerWindow:
        """Open the ledger of the request that produced `bubble`'s answer."""
        conversation = self._chat.conversation
        store = ledger_store(conversation)
        window = self.ledger_window or LedgerWindow(self._window)
        self.ledger_window = window
        trace = store.load(conversation.id) if store is not None else None
        same = [b for b in self.answers() if b.text == bubble.text]
        ordinal = same.index(bubble) if bubble in same else 0
        request = trace.request_for_answer(bubble.text, ordinal) if trace is not None else None
        if trace is None or request is None:
            window.view.show_requests([])
            window.view.usage.setText("No ledger was kept for this answer: the chat is from before ledgers were kept.")
            window.show()
            window.raise_()
            return window
        window.show_request(trace, request, conversation.title)
        return window

    # -- export ---------------------------------------------------------------------------

    def export_chat(self) -> QFileDialog:
        """Ask where to write the chat's trace and transcript (a non-blocking dialog), then write them."""
        conversation = self._chat.conversation
        name = "-".join(conversation.title.split())[:60] or "chat"
        dialog = QFileDialog(self._window, "Export chat", str(Path.home() / f"{name}.md"), "Markdown (*.md)")
        dialog.setObjectName("exportChatDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self._bridge.spawn(self.export_to(Path(path)), "Exporting the chat"))
        dialog.open()
        return dialog

    async def export_to(self, chosen: Path) -> Exported | None:
        """Write the chat on screen next to `chosen`: `<name>.jsonl` (the trace) and `<name>.md`."""
        conversation = self._chat.conversation
        chat = ChatToExport(conversation.id, conversation.title, list(conversation.messages), list(conversation.events))
        store = ledger_store(conversation) or LedgerStore(chosen.parent / ".no-trace")
        try:
            scrubber = await asyncio.to_thread(scrubber_for, self._bridge.host, None)
            exported = await asyncio.to_thread(export_chat, chat, store, scrubber, chosen)
        except OSError as exc:
            self._tell(f"The chat could not be exported: {exc}")
            self.sig_export_failed.emit(str(exc))
            return None
        self._tell(f"Exported the chat to {exported.markdown} and its trace to {exported.trace.name}")
        self.sig_exported.emit(exported)
        return exported

    def _tell(self, message: str) -> None:
        if isinstance(self._window, QMainWindow):
            self._window.statusBar().showMessage(message, 10_000)


def _add_link(bubble: MessageBubble, on_click: Callable[..., object]) -> QToolButton:
    """A small link under an answer's text, at its right."""
    row = QWidget(bubble)
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addStretch(1)
    link = QToolButton(row)
    link.setObjectName(LINK_NAME)
    link.setText(LINK_TEXT)
    link.setAutoRaise(True)
    link.setCursor(Qt.CursorShape.PointingHandCursor)
    link.setToolTip("Open this answer's ledger: every part the model was sent, its tokens, the payload as sent")
    small = type_scale().small
    themed(
        link,
        lambda p: (
            f"QToolButton {{ color: {p.muted}; font-size: {small}pt; padding: 0px {SPACE.xs}px; }}"
            f" QToolButton:hover, QToolButton:focus {{ color: {p.accent}; }}"
        ),
    )
    link.clicked.connect(on_click)
    layout.addWidget(link)
    box = bubble.layout()
    if box is not None:
        box.addWidget(row)
    if bubble.isVisible():
        row.show()  # a widget added to a shown one is not shown by itself
    return link

"""Where a question's card goes in the window, and who is told that it waits.

A model's tool approval sits inside its tool card; another question under the tool call that caused it
(the tool card waits with it), else on its server's panel. While the window is not active, the
taskbar flashes and the desktop says who asks (`attention.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QDockWidget, QWidget

from desktop_app.core.chat.approval import ApprovalRequest, Requester
from desktop_app.ui.asks.card import AskCard
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.tool_card import CallState, ToolCard
from desktop_app.ui.servers.servers_panel import ServersPanel
from desktop_app.ui.shell.attention import Attention


class CardPlacement(QObject):
    """`place(card)` puts a card where it belongs (the `CardAsker`'s placement)."""

    def __init__(
        self,
        window: QWidget,
        conversation: ConversationView,
        servers_panel: ServersPanel,
        servers_dock: QDockWidget,
        bring_to_front: Callable[[], None],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._conversation = conversation
        self._servers_panel = servers_panel
        self._servers_dock = servers_dock
        self.attention = Attention(window, bring_to_front)
        window.installEventFilter(self)  # the window active again: the notification is withdrawn

    def place(self, card: AskCard[Any]) -> None:
        question = card.question
        call_id = question.call_id
        tool = self._conversation.card(call_id) if call_id is not None else None
        if isinstance(question, ApprovalRequest) and question.requester is Requester.MODEL and call_id is not None:
            self._conversation.embed(call_id, card)
        elif call_id is not None and tool is not None:
            self._conversation.add_below(call_id, card)
            if tool.state is CallState.RUNNING:  # the tool card waits with the question
                tool.set_state(CallState.ASKING)
                card.sig_answered.connect(lambda _reply: _resume(tool))
                card.sig_withdrawn.connect(lambda _why: _resume(tool))
        else:
            self._servers_dock.show()
            self._servers_dock.raise_()
            self._servers_panel.add_card(card)
        if not self._window.isActiveWindow():
            self.attention.ask_for(question)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ActivationChange and self._window.isActiveWindow():
            self.attention.seen()
        return False


def _resume(tool: ToolCard) -> None:
    """A question of this call ended: the call runs on (unless it finished meanwhile)."""
    with contextlib.suppress(RuntimeError):  # the tool card may be gone (a new chat)
        if tool.state is CallState.ASKING:
            tool.set_state(CallState.RUNNING)

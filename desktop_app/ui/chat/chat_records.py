"""What a chat keeps besides its turns, so a reopened chat shows all the user saw: the question cards
answered in it, each app view's own tool calls, and a still of each app view.

Question cards are recorded as they end, with the card's own words; an app's tool calls as the
approval policy settles them (asked or let through by a rule); an app view is recorded when its call
starts and again, with a picture of it, when the chat is left or the app quits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QWidget

from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.approval import ApprovalPolicy, ApprovalRequest, Requester, Verdict
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.events import AppToolRecord, AppViewRecord, ChatEvent, ToolCallStarted, record_to_dict
from desktop_app.core.chat.question_records import question_record
from desktop_app.core.extensions.apps_meta import ui_resource_uri
from desktop_app.ui.asks.card import AskCard
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.record_cards import app_call_line, still_png

AppCall = Callable[[str, ApprovalRequest, Verdict], None]


@dataclass
class RecordingPolicy(ApprovalPolicy):
    """The approval policy, telling `on_app_call` how each call an app view asked for was settled."""

    on_app_call: AppCall | None = None

    async def decide(self, chat: str, request: ApprovalRequest) -> Verdict:
        verdict = await super().decide(chat, request)
        if request.requester is Requester.APP and self.on_app_call is not None:
            self.on_app_call(chat, request, verdict)
        return verdict


class ChatRecords(QObject):
    """Records into the chat on screen (`conversation()`) what its view shows besides the turn's events."""

    def __init__(
        self,
        view: ConversationView,
        conversation: Callable[[], Conversation],
        catalog: Callable[[], Catalog],
        app_view: Callable[[str], QWidget | None],
    ) -> None:
        """`app_view` finds the app view of a call (wherever it is shown now: its card, the viewer, a window)."""
        super().__init__(view)
        self._view = view
        self._conversation = conversation
        self._catalog = catalog
        self._app_view = app_view
        self._apps: dict[str, AppViewRecord] = {}
        """The app views of the chat on screen, by call."""

    def card_opened(self, card: AskCard[Any]) -> None:
        """A question card appeared: one under a tool call of this chat is recorded when it ends."""
        question = card.question
        if (
            isinstance(question, ApprovalRequest)
            or question.call_id is None
            or self._view.card(question.call_id) is None
        ):
            return  # approvals are the tool cards' own; a card elsewhere is not the chat's
        conversation = self._conversation()

        def ended(reply: object) -> None:
            title = QTextDocumentFragment.fromHtml(card.title.text()).toPlainText()
            record = question_record(question, reply, title, card.outcome.text())
            conversation.record(record_to_dict(record))

        card.sig_answered.connect(ended)
        card.sig_withdrawn.connect(lambda _why: ended(None))

    def app_call(self, chat: str, request: ApprovalRequest, verdict: Verdict) -> None:
        """An app view's tool call was settled: kept in its chat, and shown under its tool call."""
        conversation = self._conversation()
        if chat != conversation.id:
            return
        record = AppToolRecord(
            request.server,
            request.app or "",
            request.tool,
            verdict.arguments,
            verdict.allowed,
            str(verdict.decided_by),
            request.call_id,
            verdict.reason,
        )
        conversation.record(record_to_dict(record))
        line = app_call_line(record)
        if record.call_id is not None and self._view.card(record.call_id) is not None:
            self._view.add_below(record.call_id, line)
        else:
            self._view.add_widget(line)

    def on_event(self, event: ChatEvent) -> None:
        """A tool call with an app view started: the chat keeps that a view was there."""
        if not isinstance(event, ToolCallStarted) or event.server is None or event.tool is None:
            return
        snapshot = self._catalog().servers.get(event.server)
        tool = next((t for t in snapshot.tools if t.name == event.tool), None) if snapshot is not None else None
        uri = ui_resource_uri(tool) if tool is not None else None
        if uri is not None:
            record = AppViewRecord(event.call_id, event.server, uri)
            self._apps[event.call_id] = record
            self._conversation().record(record_to_dict(record))

    def keep_stills(self) -> None:
        """The chat is being left (or the app quits): a picture of each of its app views, as last shown."""
        conversation = self._conversation()
        for call_id, record in self._apps.items():
            if (widget := self._app_view(call_id)) is not None:
                still = AppViewRecord(record.call_id, record.server, record.resource_uri, still_png(widget))
                conversation.record(record_to_dict(still))
        self._apps.clear()

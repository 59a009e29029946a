"""Runs the conversation: turns on the engine, their events into the view, approvals through the asker.

The controller owns the chat-side core objects (engine, conversation store, approval policy)
so the widgets stay simple: the composer asks to send, the view renders what comes back. The
policy asks the user through the window's asker, which puts each approval inside its tool card.
The model in use and its engine (`model_in_use`), getting the model library ready (`model_warmup`)
and the status bar's count of the catalog (`context_meter`) are objects of their own; the controller
tells them when settings change and when turns start and end.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import AppSettings
from desktop_app.core.asks.question import Asker
from desktop_app.core.chat.approval import AlwaysAllowRules
from desktop_app.core.chat.conversations import DEFAULT_TITLE, Conversation, ConversationStore
from desktop_app.core.chat.engine import ChatEngine, Turn
from desktop_app.core.chat.events import (
    ApprovalNeeded,
    AppViewRecord,
    ChatError,
    ConversationTainted,
    ErrorKind,
    TurnFinished,
    Usage,
    record_to_dict,
)
from desktop_app.core.chat.history_search import message_text
from desktop_app.core.chat.prompts import PromptDraft
from desktop_app.core.chat.skill_reads import skill_loader
from desktop_app.core.ledger.store import LedgerStore
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.qt_kit.server_icon_cache import tool_icon
from desktop_app.ui.chat.app_chat import AppChatSide
from desktop_app.ui.chat.chat_records import ChatRecords, RecordingPolicy
from desktop_app.ui.chat.context_meter import ContextMeter
from desktop_app.ui.chat.model_in_use import ModelInUse
from desktop_app.ui.chat.model_warmup import ModelWarmup
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.record_cards import still_png
from desktop_app.ui.conversation.tool_card import ToolCard
from desktop_app.ui.conversation.turn_status import READING_ATTACHMENTS
from desktop_app.ui.conversation.turn_waits import show_wait

if TYPE_CHECKING:
    from desktop_app.ui.apps.controller import AppViews

TITLE_LENGTH = 60


class ChatController(QObject):
    busy_changed = Signal(bool)
    usage_changed = Signal(object)  # Usage of the last model call
    settings_needed = Signal()
    conversations_changed = Signal()
    draft_returned = Signal(str, list)  # text, refs: the message was not sent (e.g. an unreadable attachment)
    taint_changed = Signal(list)  # list[str]: why the current conversation holds untrusted content (empty: none)
    edit_requested = Signal()  # Edit on the last message: the composer takes it to change and send again

    def __init__(
        self,
        bridge: CoreBridge,
        view: ConversationView,
        store: ConversationStore,
        rules: AlwaysAllowRules,
        settings: AppSettings,
        asker: Asker,
    ) -> None:
        super().__init__()
        self._bridge = bridge
        self.view = view
        view.tool_icon = lambda server, tool: tool_icon(bridge.host.catalog, server, tool, view)
        self.store = store
        self.rules = rules
        self.records = ChatRecords(view, lambda: self.conversation, lambda: bridge.host.catalog, self._app_view)
        self.policy = RecordingPolicy(asker, rules, on_app_call=self.records.app_call)
        self._model = ModelInUse(bridge, settings, self.policy)
        self.conversation = Conversation.start(store)
        view.older.source = lambda: (self.conversation.messages, self.conversation.events)
        view.card_folded.connect(self._card_folded)
        self._last_sent: tuple[int, str, list[ResourceRef]] | None = None
        """Where the last message sent from the window went in the conversation, its text and attachments."""
        self._turn: Turn | None = None
        self._showing = False
        """From a turn's start until its end is shown (its offers made, `busy_changed` told)."""
        self.warmup = ModelWarmup(bridge, lambda: self.settings.model, view.turn_status)
        self.meter = ContextMeter(bridge, self.engine, self.warmup)
        self.apps: AppViews | None = None
        """The window's MCP App views: they follow this chat's events."""
        self.for_apps = AppChatSide(
            view,
            lambda: self.conversation,
            bridge.host.trust,
            unready=self._unready,
            send=self._send_from_app,
            tainted=self.taint_changed.emit,
        )
        """What MCP App views ask of this chat (`AppChat`)."""
        self._tell_servers()
        bridge.secrets_changed.connect(lambda _store: self._tell_servers())

    def _tell_servers(self) -> None:
        self._model.tell_servers(self.conversation.id)

    # -- settings and the engine (`model_in_use`) --------------------------------------------

    @property
    def settings(self) -> AppSettings:
        return self._model.settings

    def apply_settings(self, settings: AppSettings) -> None:
        self._model.apply(settings, self.conversation.id)
        self.meter.refresh()

    def engine(self) -> ChatEngine | None:
        return self._model.engine()

    # -- turns -----------------------------------------------------------------------------

    @property
    def turn(self) -> Turn | None:
        """The turn running now, or the last one."""
        return self._turn

    @property
    def busy(self) -> bool:
        """A turn runs, or its end is not shown yet: its task can be done before its last events are."""
        return self._showing

    def send(self, text: str, refs: list[ResourceRef]) -> bool:
        """Start a turn; False (nothing sent) while another runs or no model is chosen yet."""
        if self.busy:
            return False
        engine = self.engine()
        if engine is None:
            self.settings_needed.emit()
            return False
        position = len(self.conversation.messages)
        self._last_sent = (position, text, list(refs))
        self.view.follow()
        self.view.add_user_message(text, refs, position=position)
        self._begin(engine, text, refs)
        return True

    # -- retry, regenerate, edit -------------------------------------------------------------

    def last_message(self) -> tuple[str, list[ResourceRef]] | None:
        """The last user message as sent from the window (its attachments as chips), or as stored."""
        position = self.conversation.last_user_position()
        if position is None:
            return None
        if self._last_sent is not None and self._last_sent[0] == position:
            return self._last_sent[1], list(self._last_sent[2])
        return message_text(self.conversation.messages[position]), []

    def resend(self, reason: str, text: str | None = None, refs: list[ResourceRef] | None = None) -> bool:
        """Send the last user message again ("retry", "regenerate") or an edit of it ("edit").

        What it replaces stays in the history, marked replaced; the model reads only the new turn.
        False (nothing changed) while a turn runs, with no model, or with no message to send again.
        """
        position = self.conversation.last_user_position()
        last = self.last_message()
        if self.busy or position is None or last is None:
            return False
        engine = self.engine()
        if engine is None:
            self.settings_needed.emit()
            return False
        text, refs = (text, refs or []) if text is not None else last
        if not text.strip() and not refs:
            return False
        self.conversation.replace_from(position, reason)
        self.view.mark_replaced(position, reason)
        self._last_sent = (position, text, list(refs))
        self.view.follow()
        self.view.add_user_message(text, refs, position=position)
        self._begin(engine, text, refs)
        self.conversations_changed.emit()
        return True

    def _offer_actions(self) -> None:
        """Edit the last message, and Retry or Regenerate it, once nothing runs."""
        position = self.conversation.last_user_position()
        if position is None or self.busy:
            self.view.clear_actions()
            return
        again = "regenerate" if self.conversation.answered else "retry"
        self.view.offer_actions(position, edit=self.edit_requested.emit, again=lambda: self.resend(again))

    def _begin(self, engine: ChatEngine, text: str, refs: list[ResourceRef]) -> None:
        self.view.clear_actions()
        self.warmup.start()  # a message that was not typed (a prompt, a draft, an app's) still needs the library
        self._title_from(text or (refs[0].name if refs else ""))
        self._turn = engine.start_turn(self.conversation, text, refs, self.for_apps.take_context())
        wait = READING_ATTACHMENTS if refs else self.warmup.model_wait
        self.view.turn_status.wait_for(wait)  # at once, before any event
        self._showing = True
        self.busy_changed.emit(True)
        self.meter.turn_started()
        self._bridge.spawn(self._follow(self._turn, text, refs), "The chat turn")

    def _unready(self) -> str | None:
        """Why a message from an app view cannot be sent now (None: it can)."""
        if self.busy:
            return "The conversation is busy with an answer; try again once it has finished."
        return "No model is chosen yet, so nothing can answer the message." if self.engine() is None else None

    def _send_from_app(self, text: str) -> None:
        if (engine := self.engine()) is not None:
            self._begin(engine, text, [])

    async def _follow(self, turn: Turn, text: str, refs: list[ResourceRef]) -> None:
        try:
            async for event in turn:
                show_wait(self.view.turn_status, event, self.warmup.model_wait)
                if isinstance(event, ApprovalNeeded):
                    continue  # the asker shows the approval, inside the call's card
                if isinstance(event, ConversationTainted):
                    self.taint_changed.emit(list(turn.conversation.taint))
                    continue
                self.view.apply(event)
                self.records.on_event(event)
                if self.apps is not None:
                    self.apps.on_event(event)
                if isinstance(event, Usage):
                    self.usage_changed.emit(event)
                elif isinstance(event, ChatError) and event.kind is ErrorKind.INPUT:
                    self.draft_returned.emit(text, refs)  # nothing was sent: give the draft back
                elif isinstance(event, TurnFinished):
                    break
        finally:
            self.view.turn_status.done()
            self._showing = False
            self._offer_actions()  # there when the end is told
            self.busy_changed.emit(False)
            # The History list is built again on the event loop's next turn: a turn's end (the answer's
            # last render, its ledger link, its offers) is enough for one.
            QTimer.singleShot(0, self, self.conversations_changed.emit)
            self.meter.turn_ended()  # a count put off while the turn ran: now
        self.warmup.answered()

    def cancel(self) -> None:
        """Stop the running turn; an approval it waits for is withdrawn with it."""
        if self._turn is not None and not self._turn.done:
            self._turn.cancel()

    async def wait_idle(self) -> None:
        """Quitting: keep a still of each app view, let a running turn finish its cancellation, and let
        the last turn's ledgers be counted and written (before the tokenizer's process ends)."""
        self.records.keep_stills()
        self.warmup.stop()
        self.meter.stop()
        if self._turn is not None:
            if not self._turn.done:
                self._turn.cancel()
            await asyncio.gather(self._turn.traced(), return_exceptions=True)

    # -- conversations ---------------------------------------------------------------------

    def _app_view(self, call_id: str) -> QWidget | None:
        return self.apps.view_for_call(call_id) if self.apps is not None else None

    def _card_folded(self, card: ToolCard) -> None:
        """A tool card was folded out of a long chat: its app view is closed, and the chat keeps a still
        of it, shown when the turn is drawn again (a view in the viewer or a window runs on there)."""
        if self.apps is None or (view := self.apps.view_for_call(card.call_id)) is None:
            return
        if card.isAncestorOf(view):
            still = AppViewRecord(card.call_id, view.server, view.origin.resource_uri, still_png(view))
            self.conversation.record(record_to_dict(still))
        elif self.view.card(card.call_id) is not card:
            return  # an earlier call with the same id: the view belongs to a later card
        self.apps.release_call(card.call_id)

    def _close_apps(self, reason: str) -> None:
        self.records.keep_stills()  # the chat is left: its app views' last pictures stay in it
        self.for_apps.forget()
        if self.apps is not None:
            self.apps.close_all(reason)  # out of the cards at once; torn down in the background

    def new_chat(self) -> None:
        if self.busy:
            self.cancel()
        self._close_apps("a new chat began")
        self.policy.forget_chat(self.conversation.id)
        self.conversation = Conversation.start(self.store)
        self._last_sent = None
        self._tell_servers()
        self.view.clear()
        self.taint_changed.emit([])
        self.conversations_changed.emit()

    def resume(self, conversation_id: str) -> None:
        if self.busy:
            self.cancel()
        self._close_apps("another chat was opened")
        self.conversation = Conversation.resume(self.store, conversation_id)
        self._last_sent = None
        self._tell_servers()
        self.view.show_history(self.conversation.messages, self.conversation.events)
        self._offer_actions()
        self.taint_changed.emit(list(self.conversation.taint))
        self.conversations_changed.emit()

    def rename(self, conversation_id: str, title: str) -> None:
        self.store.rename(conversation_id, title)
        if conversation_id == self.conversation.id:
            self.conversation.title = title
        self.conversations_changed.emit()

    def delete(self, conversation_id: str) -> None:
        self.store.delete(conversation_id)
        LedgerStore.beside(self.store.path).delete(conversation_id)  # its ledgers and trace go with it
        skill_loader(self._bridge.host).forget_chat(conversation_id)  # and the skills it loaded or was allowed
        if conversation_id == self.conversation.id:
            self.new_chat()
        self.conversations_changed.emit()

    def insert_prompt(self, draft: PromptDraft, title: str) -> None:
        """A prompt the user picked: the turns before its draft join the conversation now.

        The draft itself (text and linked resources) is for the composer; a conversation that
        starts with a prompt is named after it.
        """
        if not self.conversation.messages:
            self.conversation.retitle(title)
        for message in draft.history:
            self.conversation.append(message)
            self.view.add_message("prompt" if message.get("role") == "user" else "assistant", str(message["content"]))
        if draft.history:
            self.conversations_changed.emit()

    def _title_from(self, text: str) -> None:
        if self.conversation.messages or self.conversation.title != DEFAULT_TITLE or not text.strip():
            return
        title = " ".join(text.split())
        self.conversation.retitle(title[:TITLE_LENGTH] + ("…" if len(title) > TITLE_LENGTH else ""))

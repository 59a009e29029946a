"""What MCP App views ask of the conversation on screen (`AppChat`): the chat their tool calls are
approved in and its taint, a message sent as the user's, and context for the model's next message;
and what their own tool calls returned, which the chat keeps and shows under the app's call.

Both reach the model only through the conversation, and both are shown to the user in app bubbles;
an untrusted server's app speaking to the model taints the chat, as its content would.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.events import AppToolResult, record_to_dict
from desktop_app.core.extensions.apps_meta import ViewOrigin
from desktop_app.core.trust import ServerTrust, app_taint
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.record_cards import app_result_line


class AppChatSide:
    """Implements `AppChat` for the window: `unready` says why no message can be sent now (None: it can),
    `send` starts a turn with a text, `tainted` hears the chat's reasons for taint once one is added."""

    def __init__(
        self,
        view: ConversationView,
        conversation: Callable[[], Conversation],
        trust: Callable[[str], ServerTrust],
        *,
        unready: Callable[[], str | None],
        send: Callable[[str], object],
        tainted: Callable[[list[str]], None],
    ) -> None:
        self._view = view
        self._conversation = conversation
        self._trust = trust
        self._unready = unready
        self._send = send
        self._tainted = tainted
        self._context: dict[tuple[str, str, str | None], tuple[str, MessageBubble]] = {}

    def chat_id(self) -> str:
        return self._conversation().id

    def taint(self) -> str | None:
        return self._conversation().tainted

    def send_app_message(self, origin: ViewOrigin, server: str, text: str) -> str | None:
        """A view's `ui/message`: a user message, shown as the app's, answered like the user's own."""
        if (problem := self._unready()) is not None:
            return problem
        bubble = self._view.add_message("app", text)
        bubble.header.setText(f"From the app {origin.resource_uri} ({server}), sent as your message")
        self._taint(origin, server)
        self._send(text)
        return None

    def set_app_context(self, origin: ViewOrigin, server: str, text: str) -> None:
        """A view's `ui/update-model-context`: shown to the user, given to the model with the next message."""
        key = (server, origin.resource_uri, origin.call_id)
        labelled = f"[Context from the app {origin.resource_uri} of {server}, as of now]\n{text}"
        previous = self._context.get(key)
        if previous is not None:
            bubble = previous[1]
            bubble.set_text(text)
        else:
            bubble = self._view.add_message("app", text)
            bubble.header.setText(f"The app {origin.resource_uri} gave the model context for your next message")
        self._context[key] = (labelled, bubble)
        self._taint(origin, server)

    def app_tool_result(self, chat: str, origin: ViewOrigin, server: str, tool: str, text: str, is_error: bool) -> None:
        """A view's own tool call ended: its result is kept in the chat and shown under the app's call."""
        conversation = self._conversation()
        if chat != conversation.id:
            return  # its chat was left meanwhile: as for the call itself, only the chat on screen records
        record = AppToolResult.kept(server, origin.resource_uri, tool, text, is_error, origin.call_id)
        conversation.record(record_to_dict(record))
        line = app_result_line(record)
        if record.call_id is not None and self._view.card(record.call_id) is not None:
            self._view.add_below(record.call_id, line)
        else:
            self._view.add_widget(line)

    def take_context(self) -> list[str]:
        """The views' context for the message being sent now (each bubble says it went with it)."""
        for _text, bubble in self._context.values():
            bubble.header.setText(f"{bubble.header.text()} · sent with this message")
        texts = [text for text, _bubble in self._context.values()]
        self._context.clear()
        return texts

    def forget(self) -> None:
        """The chat is left: context meant for its next message goes with it."""
        self._context.clear()

    def _taint(self, origin: ViewOrigin, server: str) -> None:
        """An untrusted server's app speaks to the model: the chat holds untrusted content from now on."""
        conversation = self._conversation()
        reason = app_taint(server, origin.resource_uri, self._trust(server))
        if reason is not None and conversation.add_taint(reason):
            self._tainted(list(conversation.taint))

"""A stored conversation drawn again as it happened: its messages, the events and records kept beside
them (tool calls as they ran, question cards, app views, replaced answers), each where it was.

Events are (message position, event) pairs, each shown after the first `position` messages.
Conversations from before events were kept get plain cards from the messages alone. A long chat is
drawn in spans of whole turns (`turn_spans`), its last screen first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from desktop_app.core.chat.events import (
    AppViewRecord,
    ChatEvent,
    HistoryRecord,
    ToolCallStarted,
    ToolResult,
    event_from_dict,
)
from desktop_app.core.chat.history_repair import INTERRUPTED_RESULT
from desktop_app.core.chat.history_search import message_text
from desktop_app.ui.conversation.message_bubble import MessageBubble, Role
from desktop_app.ui.conversation.tool_card import CallState, ToolCard


class ReplayTarget(Protocol):
    """What the conversation view offers the replay (it is that view)."""

    def add_message(self, role: Role, text: str) -> MessageBubble: ...

    def add_user_message(
        self, text: str, refs: Sequence[Any] = (), *, position: int | None = None
    ) -> MessageBubble: ...

    def add_card(self, card: ToolCard) -> ToolCard: ...

    def card(self, call_id: str) -> ToolCard | None: ...

    def apply(self, event: ChatEvent) -> None: ...

    def apply_record(self, record: HistoryRecord) -> None: ...


def turn_spans(messages: Sequence[dict[str, Any]], last: int, older: int) -> list[tuple[int, int]]:
    """(first, end) spans of whole turns (each starts at a user's message), newest first: the first
    holds at least the `last` messages at the end, each other about `older` messages."""
    starts = [i for i, message in enumerate(messages) if i == 0 or message.get("role") == "user"]
    end = len(messages)
    first = max((i for i in starts if i <= end - last), default=0)
    spans = [(first, end)]
    for start in reversed(starts):
        if start < spans[-1][0] and (spans[-1][0] - start >= older or start == 0):
            spans.append((start, spans[-1][0]))
    return spans


def replay_history(
    view: ReplayTarget,
    messages: list[dict[str, Any]],
    events: Sequence[tuple[int, dict[str, Any]]],
    *,
    track: bool,
    span: tuple[int, int] | None = None,
) -> None:
    """Draw `messages` with `events` into `view` (only those of `span`, a `turn_spans` part, if given);
    `track` numbers the user's messages (not in a replaced part)."""
    first, end = span or (0, len(messages))
    replay: dict[int, list[ChatEvent | HistoryRecord]] = {}
    started: set[tuple[int, str]] = set()
    results: set[tuple[int, str]] = set()
    stills = _last_stills(events)
    for position, stored in events:
        if not first <= position < end and not (position >= end == len(messages)):
            continue
        event = event_from_dict(stored)
        if event is None:
            continue
        if isinstance(event, AppViewRecord):
            if event.snapshot:
                continue  # drawn in its call's card, where the view was first recorded
            event = stills.get(event.call_id, event)
        elif isinstance(event, ToolCallStarted):
            started.add((position, event.call_id))
        elif isinstance(event, ToolResult):
            results.add((position, event.call_id))
            answer = messages[position] if position < len(messages) else {}
            if not event.text and answer.get("tool_call_id") == event.call_id:
                event = replace(event, text=str(answer.get("content", "")))  # kept once, in the message
        replay.setdefault(position, []).append(event)
    # With kept events, a call that never started (a crash came first) is drawn where its
    # result is, after the calls before it; without events every card comes from the messages.
    unstarted: dict[str, dict[str, Any]] | None = {} if events else None
    for index in range(first, end + 1):
        for event in replay.get(index, []):
            _show(view, event)
        if index < end:
            _show_message(view, index, messages[index], started, results, unstarted, track)
    for call in (unstarted or {}).values():
        _plain_card(view, call)


def _last_stills(events: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, AppViewRecord]:
    """The last still kept of each app view, by call: it is taken when the chat is left or the view's
    turn is folded out of a long chat, turns after the view was first recorded."""
    stills: dict[str, AppViewRecord] = {}
    for _position, stored in events:
        if stored.get("type") == AppViewRecord.__name__ and stored.get("snapshot"):
            record = event_from_dict(stored)
            if isinstance(record, AppViewRecord):
                stills[record.call_id] = record
    return stills


def _show(view: ReplayTarget, event: ChatEvent | HistoryRecord) -> None:
    if isinstance(event, HistoryRecord):
        view.apply_record(event)
    else:
        view.apply(event)


def _plain_card(view: ReplayTarget, call: dict[str, Any]) -> ToolCard:
    """A call's card from its message alone (no events were kept for it)."""
    function = call.get("function", {})
    card = ToolCard(call.get("id", ""), "", function.get("name", "tool"), {})
    card.arguments.setPlainText(function.get("arguments", ""))
    card.set_state(CallState.DONE)
    return view.add_card(card)


def _show_message(
    view: ReplayTarget,
    index: int,
    message: dict[str, Any],
    started: set[tuple[int, str]],
    results: set[tuple[int, str]],
    unstarted: dict[str, dict[str, Any]] | None,
    track: bool,
) -> None:
    role = message.get("role")
    if role == "user":
        view.add_user_message(message_text(message), position=index if track else None)
    elif role == "assistant":
        if text := message_text(message):
            view.add_message("assistant", text)
        calls = message.get("tool_calls") or []
        for call in calls:
            call_id = call.get("id", "")
            # A call starts after the results of the calls before it in the same message.
            if any((index + k, call_id) in started for k in range(1, len(calls) + 1)):
                continue  # its kept events draw the card
            if unstarted is None:
                _plain_card(view, call)
            else:
                unstarted[call_id] = call
    elif role == "tool" and (index, message.get("tool_call_id", "")) not in results:
        call_id = message.get("tool_call_id", "")
        if unstarted is not None and call_id in unstarted:
            _plain_card(view, unstarted.pop(call_id))
        called = view.card(call_id)
        text = str(message.get("content", ""))
        if called is not None and text == INTERRUPTED_RESULT:  # the app stopped: a decision may be shown
            called.set_result(text, is_error=False, denied=False, structured=None, binaries=[], interrupted=True)
        elif called is not None and not called.settled:
            called.set_result(text, is_error=False, denied=False, structured=None, binaries=[])

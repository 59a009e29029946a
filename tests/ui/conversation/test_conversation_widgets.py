"""Conversation widgets offscreen: markdown, events to cards, approvals inside their tool card, history, composer."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.asks.question import ask_user
from desktop_app.core.chat.approval import ApprovalReply, ApprovalRequest, DecidedBy, Decision, Requester
from desktop_app.core.chat.conversations import Conversation, ConversationStore
from desktop_app.core.chat.events import (
    ChatError,
    ResourceRead,
    TextDelta,
    ToolBinary,
    ToolCallStarted,
    ToolDecision,
    ToolProgress,
    ToolResult,
    TurnFinished,
    event_to_dict,
)
from desktop_app.core.chat.history_repair import INTERRUPTED_RESULT
from desktop_app.core.content import ResourceContent
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.trust import ServerTrust, ToolHints
from desktop_app.qt_kit.drag_payload import encode_resources
from desktop_app.qt_kit.layout_widgets import widgets_in
from desktop_app.qt_kit.theme import tokens
from desktop_app.qt_kit.tokens import LIGHT
from desktop_app.ui.asks.card import Tone
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.approval_words import DANGER_COLOUR, hint_badges
from desktop_app.ui.conversation.attachment_chip import AttachmentChip
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.markdown_html import render_markdown
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.pane import ConversationPane
from desktop_app.ui.conversation.taint_chip import TaintChip
from desktop_app.ui.conversation.tool_card import CallState, ResourceChip, ToolCard
from desktop_app.ui.widgets.bordered_frame import CALM_BORDER
from tests.hosting import eventually
from tests.servers.fixture_server import huge_png_bytes, png_bytes
from tests.window_kit import run_in_qt


def test_markdown_escapes_html_and_numbers_code_blocks() -> None:
    rendered = render_markdown('Hi <b>there</b>\n\n```json\n{"a": 1}\n```\n\n```\nplain\n```\n')
    assert "&lt;b&gt;" in rendered.html and "<b>there</b>" not in rendered.html
    assert rendered.code_blocks == ('{"a": 1}\n', "plain\n")
    assert 'href="copy:0"' in rendered.html and 'href="copy:1"' in rendered.html


def test_copy_link_puts_the_code_on_the_clipboard(qtbot: QtBot) -> None:
    bubble = MessageBubble("assistant", "```python\nprint('x')\n```")
    qtbot.addWidget(bubble)
    bubble.body.anchorClicked.emit(QUrl("copy:0"))
    assert QGuiApplication.clipboard().text() == "print('x')\n"


def test_a_web_link_clicked_in_a_message_asks_to_leave_the_app(qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    bubble = view.add_message("assistant", "See [the release notes](https://example.org/notes) or `copy:0`.")
    qtbot.waitUntil(lambda: bubble.body.isVisible() and bubble.body.height() > 10)
    link = bubble.body.document().find("the release notes")
    link.setPosition(link.selectionStart() + 4)  # inside the link, not on its edge
    at = bubble.body.cursorRect(link).center() + QPoint(3, 0)
    assert bubble.body.anchorAt(at) == "https://example.org/notes"
    with qtbot.waitSignal(view.web_link_requested, timeout=2000) as clicked:
        qtbot.mouseClick(bubble.body.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert clicked.args == ["https://example.org/notes"]


def test_a_long_code_line_wraps_inside_the_message_with_its_copy_link_in_view(qtbot: QtBot) -> None:
    bubble = MessageBubble("assistant", "```python\nvalue = " + " + ".join(["item"] * 80) + "\n```\n")
    qtbot.addWidget(bubble)
    bubble.resize(500, 200)
    bubble.show()
    qtbot.waitUntil(lambda: bubble.body.document().textWidth() == bubble.body.viewport().width())
    assert bubble.body.document().idealWidth() <= bubble.body.viewport().width()


def test_events_become_messages_cards_and_chips(qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.add_message("user", "What is in the guide?")
    for piece in ("The guide ", "says **hello**."):
        view.apply(TextDelta(piece))
    view.apply(ToolCallStarted("c1", "demo__add_note", {"title": "t"}, "demo", "add_note"))
    card = view.card("c1")
    assert card is not None and card.state is CallState.RUNNING
    view.apply(ToolProgress("c1", 1, 4, "indexing"))
    assert card.progress.text() == "25% indexing"
    assert '"title": "t"' in card.arguments.toPlainText()
    view.apply(ToolResult("c1", "demo__add_note", "Added", structured={"ok": True}))
    assert card.state is CallState.DONE and not card.result_toggle.isHidden()
    view.apply(ToolCallStarted("c2", "demo__x", {}, "demo", "x"))
    view.apply(ToolResult("c2", "demo__x", "The user declined.", denied=True))
    assert view.card("c2") is not None and view.card("c2").state is CallState.DENIED  # type: ignore[union-attr]
    view.apply(
        ResourceRead(
            "demo://guide", "demo", (ResourceContent(uri="demo://guide", mime_type="text/markdown", text="x" * 2048),)
        )
    )
    chips = view.findChildren(ResourceChip)
    assert chips and chips[0].text() == "read demo://guide, 2.0 KB"
    opened: list[tuple[str, str]] = []
    view.open_resource.connect(lambda uri, server: opened.append((uri, server)))
    chips[0].click()
    assert opened == [("demo://guide", "demo")]
    view.apply(ChatError(kind="provider", message="The provider refused the key."))  # type: ignore[arg-type]
    view.apply(TurnFinished("cancelled", "", 1))
    bubbles = [b for b in view.findChildren(MessageBubble)]
    assert [b.role for b in bubbles] == ["user", "assistant", "notice", "info"]
    assert bubbles[1].text == "The guide says **hello**."
    assert bubbles[-1].text == "Stopped.", "stopping is news, not an error"


def test_attachments_in_a_sent_message_are_chips_that_open_the_resource(qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    ref = ResourceRef("demo", "demo://guide", "Guide", "text/markdown")
    bubble = view.add_user_message("Summarize", [ref])
    assert bubble.text == "Summarize", "no glyph or URI pasted into the text"
    [chip] = bubble.findChildren(AttachmentChip)
    assert chip.label.text() == "Guide" and chip.remove_button is None and "demo://guide" in chip.toolTip()
    opened: list[tuple[str, str]] = []
    view.open_resource.connect(lambda uri, server: opened.append((uri, server)))
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert opened == [("demo://guide", "demo")]


DESTRUCTIVE = ToolHints(read_only=False, destructive=True, idempotent=True, open_world=False)
SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "text": {"type": "string"}},
    "required": ["title", "text"],
}


def _started(call_id: str = "c1", hints: ToolHints | None = None) -> ToolCallStarted:
    return ToolCallStarted(
        call_id,
        "demo__add_note",
        {"title": "a", "text": "b"},
        "demo",
        "add_note",
        title="Add a note",
        description="Append a note",
        hints=hints,
        trusted=True,
    )


def _request(**overrides: Any) -> ApprovalRequest:
    fields: dict[str, Any] = {
        "call_id": "c1",
        "server": "demo",
        "tool": "add_note",
        "exposed_name": "demo__add_note",
        "title": "Add a note",
        "description": "Append a note",
        "arguments": {"title": "a", "text": "b"},
        "input_schema": SCHEMA,
        "trust": ServerTrust(trusted=True),
    }
    fields.update(overrides)
    return ApprovalRequest(**fields)


def _window_asker(view: ConversationView) -> CardAsker:
    """The main window's placement, reduced to the conversation: approvals go inside their tool card."""
    asker = CardAsker(lambda card: view.embed(card.question.call_id or "", card))
    asker.register(ApprovalRequest, ApprovalPanel)
    return asker


def _visible_editors(card: ToolCard) -> list[QPlainTextEdit]:
    return [e for e in card.findChildren(QPlainTextEdit) if e.isVisibleTo(card)]


def _open_panels(view: ConversationView) -> list[ApprovalPanel]:
    return [p for p in view.findChildren(ApprovalPanel) if p.open]


def test_one_card_per_call_with_keyboard_answers(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        view = ConversationView()
        qtbot.addWidget(view)
        view.resize(720, 700)
        view.show()
        asker = _window_asker(view)
        view.apply(_started())
        card = view.card("c1")
        assert card is not None and card.description.text() == "Append a note"
        answer = asyncio.ensure_future(ask_user(asker, _request()))
        await eventually(lambda: card.state is CallState.AWAITING, what="the card to await approval")
        [panel] = _open_panels(view)
        assert card.isAncestorOf(panel)
        assert view.focusWidget() is panel, "the keyboard goes to the card that asks"
        assert panel.title.isHidden() and panel.origin.isHidden()  # the card's header says it already
        assert _visible_editors(card) == [panel.editor]  # the arguments appear once, editable
        assert json.loads(panel.editor.toPlainText()) == {"title": "a", "text": "b"}
        qtbot.keyClick(panel, Qt.Key.Key_Return)  # too soon: a keystroke meant for elsewhere does nothing
        assert not answer.done()
        await eventually(lambda: panel.armed, timeout=5, what="the panel to take Enter")
        qtbot.keyClick(panel, Qt.Key.Key_Return)
        reply = await answer
        assert reply == ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.USER)
        assert card.panel is None and card.arguments.isVisibleTo(card) and card.state is CallState.RUNNING
        view.apply(ToolDecision("c1", "demo", "add_note", True, "user", "allow_once", {"title": "a", "text": "b"}))
        view.apply(ToolResult("c1", "demo__add_note", "Added"))
        assert card.state is CallState.DONE and card.decision.text() == "Allowed once by you"

        # Esc denies, from anywhere in the panel (here: the arguments).
        view.apply(_started("c2"))
        answer = asyncio.ensure_future(ask_user(asker, _request(call_id="c2")))
        await eventually(lambda: len(_open_panels(view)) == 1, what="the second panel")
        [second] = _open_panels(view)
        qtbot.keyClick(second.editor, Qt.Key.Key_Escape)
        assert (await answer).decision is Decision.DENY

    run_in_qt(qapp, scenario())


def test_edit_in_place_then_deny_with_a_reason(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        view = ConversationView()
        qtbot.addWidget(view)
        asker = _window_asker(view)
        view.apply(_started())
        answer = asyncio.ensure_future(ask_user(asker, _request()))
        await eventually(lambda: bool(_open_panels(view)), what="the panel")
        [panel] = _open_panels(view)
        panel.editor.setPlainText("{not json")
        panel.allow_once.click()
        assert not answer.done() and "not valid JSON" in panel.problem.text()
        panel.editor.setPlainText('{"title": 3, "text": "b"}')
        panel.allow_once.click()
        assert not answer.done() and "schema" in panel.problem.text()
        panel.editor.setPlainText('{"title": "edited", "text": "b"}')
        panel.allow_chat.click()
        reply = await answer
        assert reply.decision is Decision.ALLOW_CHAT and reply.arguments == {"title": "edited", "text": "b"}
        card = view.card("c1")
        assert card is not None
        edited = {"title": "edited", "text": "b"}
        view.apply(ToolDecision("c1", "demo", "add_note", True, "user", "allow_chat", edited, edited=True))
        assert json.loads(card.arguments.toPlainText()) == edited  # what ran, not what the model proposed
        assert card.decision.text() == "Allowed by you for this chat, with your edits to the arguments"

        view.apply(_started("c2"))
        answer = asyncio.ensure_future(ask_user(asker, _request(call_id="c2")))
        await eventually(lambda: bool(_open_panels(view)), what="the second panel")
        [panel] = _open_panels(view)
        qtbot.keyClicks(panel.reason, "  use the   staging notes ")
        qtbot.keyClick(panel.reason, Qt.Key.Key_Return)  # Enter in the reason denies, never allows
        reply = await answer
        assert reply == ApprovalReply(Decision.DENY, reason="use the staging notes", by=DecidedBy.USER)
        second = view.card("c2")
        assert second is not None
        proposed = {"title": "a", "text": "b"}
        view.apply(ToolDecision("c2", "demo", "add_note", False, "user", "deny", proposed, reason=reply.reason))
        view.apply(ToolResult("c2", "demo__add_note", "The user declined: use the staging notes", denied=True))
        assert second.state is CallState.DENIED
        assert second.decision.text() == "Denied by you: “use the staging notes”"
        assert second.result_toggle.isHidden()  # the refusal is not repeated as a "result"

    run_in_qt(qapp, scenario())


def test_destructive_tools_need_a_second_confirmation_to_always_allow(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        view = ConversationView()
        qtbot.addWidget(view)
        view.show()
        asker = _window_asker(view)
        view.apply(_started(hints=DESTRUCTIVE))
        card = view.card("c1")
        assert card is not None and card.claims is not None
        badges = [label.text() for label in card.claims.findChildren(QLabel)]
        assert badges[0] == "demo says:" and "destructive" in badges and "idempotent" in badges
        answer = asyncio.ensure_future(ask_user(asker, _request(hints=DESTRUCTIVE)))
        await eventually(lambda: bool(_open_panels(view)), what="the panel")
        [panel] = _open_panels(view)
        assert panel.tone is Tone.DANGER and card.border == (QColor(Tone.DANGER.colour(tokens())), 2)
        assert panel.border[1] == 0, "inside the card, the card's border carries the tone"
        assert panel.allow_always.text() == "Always allow…"
        panel.allow_always.click()
        assert not answer.done() and panel.confirm.isVisibleTo(panel)
        qtbot.keyClick(panel.confirm_no, Qt.Key.Key_Escape)  # Esc backs out of the confirmation, no denial
        assert not answer.done() and not panel.confirm.isVisibleTo(panel)
        panel.allow_always.click()
        panel.confirm_yes.click()
        assert (await answer).decision is Decision.ALLOW_ALWAYS
        assert card.border == (CALM_BORDER, 1)  # answered: the card is calm again

    run_in_qt(qapp, scenario())


def test_a_card_asked_under_taint_says_so(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        view = ConversationView()
        qtbot.addWidget(view)
        asker = _window_asker(view)
        taint = "read web://notes from web, a server you have not marked as trusted"
        # The engine asks before the view has drawn the call: the panel waits for its card.
        answer = asyncio.ensure_future(ask_user(asker, _request(taint=taint, rule_paused=True)))
        await eventually(lambda: len(asker.pending) == 1, what="the question")
        [panel] = asker.pending
        assert isinstance(panel, ApprovalPanel) and panel.parent() is None
        view.apply(_started())
        card = view.card("c1")
        assert card is not None and card.isAncestorOf(panel)
        assert panel.taint.isVisibleTo(panel) and "Untrusted content is in this conversation" in panel.taint.text()
        assert "web://notes" in panel.taint.text() and "paused" in panel.taint.text()
        assert panel.allow_chat.isHidden()  # it could not apply while the chat is tainted
        # A trusted read-only tool is not under taint: no note.
        plain = ApprovalPanel(_request(taint=taint, hints=ToolHints(read_only=True)))
        qtbot.addWidget(plain)
        assert plain.taint.isHidden() and not plain.allow_chat.isHidden()
        answer.cancel()  # the turn stopped: the question is withdrawn and the card is itself again
        await asyncio.gather(answer, return_exceptions=True)
        assert card.panel is None and card.arguments.isVisibleTo(card)
        view.apply(ToolResult("c1", "", "cancelled", cancelled=True))
        assert card.state is CallState.CANCELLED
        assert card.decision.text() == "Stopped before you answered; it did not run"
        # A call that became a task goes on when the turn stops: the card says the turn stopped, not the call.
        view.apply(_started("c5"))
        tasked = view.card("c5")
        assert tasked is not None
        tasked.show_task(QLabel("task · working"))
        view.apply(ToolResult("c5", "", "stopped", cancelled=True))
        assert tasked.state is CallState.STOPPED and tasked.badge.text().strip() == "stopped"
        # Withdrawn before its card arrived: the card comes without it.
        early = asyncio.ensure_future(ask_user(asker, _request(call_id="c9")))
        await eventually(lambda: len(asker.pending) == 1, what="the early question")
        early.cancel()
        await asyncio.gather(early, return_exceptions=True)
        view.apply(_started("c9"))
        late = view.card("c9")
        assert late is not None and late.panel is None and late.state is CallState.RUNNING

    run_in_qt(qapp, scenario())


def test_the_taint_chip_stays_one_line_and_keeps_every_reason(qtbot: QtBot) -> None:
    chip = TaintChip()
    qtbot.addWidget(chip)
    chip.resize(420, 40)
    long = "read web://a/very/long/path/to/notes.md from web, a server you have not marked as trusted"
    chip.set_reasons([long, "result of fetch on web, a tool that may bring in content from the open world"])
    shown = chip.label.text()
    assert shown.startswith("⚠ Untrusted content in this chat: read web://") and shown.endswith("… (+1 more)")
    assert chip.label.fontMetrics().horizontalAdvance(shown) <= chip.width()
    assert chip.text == f"⚠ Untrusted content in this chat: {long} (+1 more)"
    assert long in chip.label.toolTip() and "open world" in chip.label.toolTip()
    chip.resize(1400, 40)
    assert chip.label.text() == chip.text  # room enough: nothing is cut
    chip.set_reasons([])
    assert chip.isHidden()


def test_a_standalone_panel_shows_what_a_card_would(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        panel = ApprovalPanel(_request(requester=Requester.APP, call_id=None, hints=DESTRUCTIVE))
        qtbot.addWidget(panel)
        panel.show()
        assert "An app view wants to run <b>Add a note</b> on <b>demo</b>?" in panel.title.text()
        assert panel.description is not None and panel.description.isVisible() and panel.title.isVisible()
        assert panel.claims is not None and panel.claims.isVisible()
        named = ApprovalPanel(_request(requester=Requester.APP, app="ui://demo/board.html"))
        qtbot.addWidget(named)
        assert "The app <b>ui://demo/board.html</b> wants to run <b>Add a note</b>" in named.title.text()

    run_in_qt(qapp, scenario())


def test_claims_are_coloured_only_where_they_are_relied_on(qtbot: QtBot) -> None:
    def badges(hints: ToolHints, trusted: bool) -> dict[str, str]:
        row = hint_badges("web", hints, trusted)
        assert row is not None
        qtbot.addWidget(row)
        row.ensurePolished()  # the row's sheet gives each label its colour
        return {
            label.text(): label.palette().color(QPalette.ColorRole.WindowText).name()
            for label in row.findChildren(QLabel)
        }

    trusted = badges(ToolHints(read_only=True, open_world=True), trusted=True)
    assert trusted["read-only"] == LIGHT.success and trusted["open world"] == LIGHT.caution
    assert trusted["web says:"] == LIGHT.muted and "(not verified)" not in trusted
    untrusted = badges(ToolHints(read_only=True, open_world=True), trusted=False)
    assert untrusted["read-only"] == LIGHT.muted and untrusted["(not verified)"] == LIGHT.muted
    assert badges(ToolHints(destructive=True), trusted=False)["destructive"] == DANGER_COLOUR  # always believed
    assert hint_badges("web", ToolHints(), trusted=False) is None


def test_history_shows_what_happened(qapp: QApplication, qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    edited = {"title": "edited", "text": "b"}
    guide = (ResourceContent(uri="demo://guide", mime_type="text/markdown", text="x" * 2048),)
    started = ToolCallStarted("c1", "demo__add_note", {"title": "a", "text": "b"}, "demo", "add_note")
    lookup = ToolCallStarted("c3", "demo__get_time", {}, "demo", "get_time", hints=ToolHints(read_only=True))
    kept = [
        (2, replace(started, title="Add a note", hints=DESTRUCTIVE, trusted=True)),
        (2, ToolDecision("c1", "demo", "add_note", True, "user", "allow_once", edited, edited=True)),
        (2, ToolResult("c1", "demo__add_note", "")),  # as stored: the text is in the tool message
        (3, lookup),  # the second call of the same message starts after the first one's result
        (3, ToolDecision("c3", "demo", "get_time", True, "server_rule", None, {})),
        (3, ToolResult("c3", "demo__get_time", "noon")),
        (5, ToolCallStarted("c2", "read_resource", {"uri": "demo://guide"}, None, None)),
        (5, ResourceRead("demo://guide", "demo", guide)),
        (5, ToolResult("c2", "read_resource", "x" * 2048)),
        (7, TurnFinished("cancelled", "", 2)),
    ]
    calls_1 = [
        {"id": "c1", "function": {"name": "demo__add_note", "arguments": "{}"}},
        {"id": "c3", "function": {"name": "demo__get_time", "arguments": "{}"}},
    ]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Add a note, tell the time and read the guide"},
        {"role": "assistant", "tool_calls": calls_1},
        {"role": "tool", "tool_call_id": "c1", "content": "Added note 1"},
        {"role": "tool", "tool_call_id": "c3", "content": "noon"},
        {"role": "assistant", "tool_calls": [{"id": "c2", "function": {"name": "read_resource", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "x" * 2048},
        {"role": "assistant", "content": "Half an ans"},
    ]
    view.show_history(messages, [(p, event_to_dict(e)) for p, e in kept])
    note, time_card = view.findChildren(ToolCard)  # read_resource is a chip, not a card
    assert json.loads(note.arguments.toPlainText()) == edited
    assert note.decision.text() == "Allowed once by you, with your edits to the arguments"
    assert note.state is CallState.DONE and note.claims is not None
    assert [e.toPlainText() for e in note.result_box.findChildren(QPlainTextEdit)] == ["Added note 1"]
    assert time_card.decision.text().startswith("Allowed by your rule: this trusted server's read-only tools")
    [chip] = view.findChildren(ResourceChip)
    assert chip.text() == "read demo://guide, 2.0 KB"
    bubbles = view.findChildren(MessageBubble)
    assert [b.role for b in bubbles] == ["user", "assistant", "info"] and bubbles[-1].text == "Stopped."
    order = [view._layout.indexOf(w) for w in (bubbles[0], note, time_card, chip, bubbles[1], bubbles[2])]
    assert order == sorted(order)

    # A conversation stored before events were kept still shows its calls, from the messages.
    view.show_history(messages)
    assert [c.title.text().split("</b>")[0] for c in view._cards.values()] == [
        "<b>demo__add_note",
        "<b>demo__get_time",
        "<b>read_resource",
    ]
    assert all(c.state is CallState.DONE for c in view._cards.values())


def test_resources_dropped_anywhere_on_the_conversation_are_attached(qtbot: QtBot) -> None:
    view, composer = ConversationView(), Composer()
    pane = ConversationPane(view, QWidget(), composer)
    qtbot.addWidget(pane)
    pane.resize(600, 500)
    pane.show()
    bubble = view.add_message("assistant", "Some earlier answer")
    ref = ResourceRef("demo", "demo://guide", "Guide", "text/markdown")
    payload = encode_resources([ref])  # the event does not own its mime data: keep it alive
    target = bubble.body.viewport()  # over a message, far from the composer
    point = QPointF(10, 5)
    actions, button, mods = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point, actions, payload, button, mods)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted() and pane.drop_hint.isVisible()
    QApplication.sendEvent(target, QDropEvent(point, actions, payload, button, mods))
    assert composer.attachments == [ref] and not pane.drop_hint.isVisible()
    assert not composer.chips.isHidden()


def test_composer_keys_and_attachments(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[tuple[str, list[ResourceRef]]] = []
    composer.send_requested.connect(lambda text, refs: sent.append((text, refs)))
    ref = ResourceRef("demo", "demo://guide", "Guide", "text/markdown")
    composer.attach([ref])
    assert composer.attachments == [ref]
    composer.editor.setPlainText("Summarize this")
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert sent == [("Summarize this", [ref])]
    composer.clear()
    assert composer.attachments == [] and composer.editor.toPlainText() == ""
    assert composer.chips.isHidden()

    with qtbot.waitSignal(composer.cancel_requested, timeout=1000):
        qtbot.keyClick(composer.editor, Qt.Key.Key_Escape)
    with qtbot.waitSignal(composer.palette_requested, timeout=1000):
        qtbot.keyClick(composer.editor, Qt.Key.Key_Slash)
    with qtbot.waitSignal(composer.palette_requested, timeout=1000):
        qtbot.keyClick(composer.editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    composer.attach([ref])
    composer.detach(ref)
    assert composer.attachments == []


def test_a_chips_remove_button_is_the_cross_icon_and_still_removes_the_attachment(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(500, 120)
    composer.show()
    kept = ResourceRef("demo", "demo://notes", "Notes", "text/markdown")
    gone = ResourceRef("demo", "demo://guide", "Guide", "text/markdown")
    composer.attach([kept, gone])
    chip = next(c for c in composer.findChildren(AttachmentChip) if c.ref == gone)
    button = chip.remove_button
    assert button is not None
    assert button.text() == "" and not button.icon().isNull() and button.icon().name() == "x"
    assert button.accessibleName() == "Remove Guide" and button.toolTip() == "Remove this attachment"
    qtbot.waitUntil(button.isVisible)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert composer.attachments == [kept]
    row = composer.chips.layout()
    assert row is not None and [chip.ref for chip in widgets_in(row) if isinstance(chip, AttachmentChip)] == [kept]
    qtbot.waitUntil(lambda: [c.ref for c in composer.findChildren(AttachmentChip)] == [kept])


def test_history_shows_a_call_the_app_never_finished(qtbot: QtBot, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    killed = Conversation.start(store)
    call = {"type": "function", "function": {"name": "fx__add", "arguments": '{"a": 1}'}}
    killed.append({"role": "user", "content": "add"})
    killed.append({"role": "assistant", "content": "", "tool_calls": [{**call, "id": "c1"}, {**call, "id": "c2"}]})
    killed.append({"role": "tool", "tool_call_id": "c1", "content": "2"})
    view = ConversationView()
    qtbot.addWidget(view)
    view.show_history(Conversation.resume(store, killed.id).messages)
    finished, stopped = view.card("c1"), view.card("c2")
    assert finished is not None and finished.state is CallState.DONE
    assert stopped is not None and stopped.state is CallState.INTERRUPTED
    assert stopped.badge.text().strip() == "interrupted"
    assert stopped.result_toggle.isChecked()
    assert [label.text() for label in stopped.result_box.findChildren(QLabel)] == [INTERRUPTED_RESULT]
    store.close()


def test_a_tool_card_shows_no_thumbnail_for_an_image_bomb(qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.apply(ToolCallStarted("c1", "fx__rich", {}, "fx", "rich"))
    bomb = ToolBinary("image/png", huge_png_bytes(), "x://bomb.png")
    small = ToolBinary("image/png", png_bytes(), "x://image.png")
    view.apply(ToolResult("c1", "fx__rich", "two images", binaries=(bomb, small)))  # no Qt warning either
    card = view.card("c1")
    assert card is not None
    thumbnails = [label.pixmap() for label in card.result_box.findChildren(QLabel) if not label.pixmap().isNull()]
    assert [(pixmap.width(), pixmap.height()) for pixmap in thumbnails] == [(16, 12)]  # only the small one
    rows = [label.text() for label in card.result_box.findChildren(QLabel)]
    assert sum(text.startswith("image/png · ") for text in rows) == 2  # both still listed, with Open


def test_history_with_kept_events_shows_the_calls_a_crash_cut_short(qtbot: QtBot, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    killed = Conversation.start(store)
    call = {"type": "function", "function": {"name": "demo__add_note", "arguments": "{}"}}
    killed.append({"role": "user", "content": "add two notes"})
    killed.append({"role": "assistant", "content": "", "tool_calls": [{**call, "id": "c1"}, {**call, "id": "c2"}]})
    killed.record(event_to_dict(ToolCallStarted("c1", "demo__add_note", {}, "demo", "add_note")))
    killed.record(event_to_dict(ToolDecision("c1", "demo", "add_note", True, "user", "allow_once", {})))
    # Killed while c1 ran; c2's card never started.
    view = ConversationView()
    qtbot.addWidget(view)
    resumed = Conversation.resume(store, killed.id)
    view.show_history(resumed.messages, resumed.events)
    running, waiting = view.card("c1"), view.card("c2")
    assert running is not None and running.state is CallState.INTERRUPTED
    assert running.decision.text() == "Allowed once by you"  # who decided stays, the note says the rest
    assert [label.text() for label in running.result_box.findChildren(QLabel)] == [INTERRUPTED_RESULT]
    assert waiting is not None and waiting.state is CallState.INTERRUPTED
    assert view._layout.indexOf(running) < view._layout.indexOf(waiting), "in the order of the calls"
    # Later messages and events keep their places after the repair.
    resumed.append({"role": "assistant", "content": "Sorry, I was stopped."})
    resumed.record(event_to_dict(TurnFinished("stop", "Sorry, I was stopped.", 1)))
    again = Conversation.resume(store, killed.id)
    assert [m["role"] for m in again.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert again.events[-1][0] == 5
    store.close()

"""Conversation widgets offscreen: markdown, events to cards, approval card answers, composer."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QGuiApplication
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.approval import ApprovalRequest, Decision
from desktop_app.core.chat.events import (
    ChatError,
    ResourceRead,
    TextDelta,
    ToolCallStarted,
    ToolProgress,
    ToolResult,
    TurnFinished,
)
from desktop_app.core.content import ResourceContent
from desktop_app.ui.conversation.approval_card import ApprovalCard, CardApprover
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.markdown_html import render_markdown
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.tool_card import CallState, ResourceChip
from resources_ui.drag_payload import ResourceRef, encode_resources
from tests.hosting import run_in_qt


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
    assert [b.role for b in bubbles] == ["user", "assistant", "notice", "notice"]
    assert bubbles[1].text == "The guide says **hello**."
    assert bubbles[-1].text == "Stopped."


def _request(**overrides: Any) -> ApprovalRequest:
    fields: dict[str, Any] = {
        "call_id": "c1",
        "server": "demo",
        "tool": "add_note",
        "exposed_name": "demo__add_note",
        "description": "Append a note",
        "arguments": {"title": "a", "text": "b"},
        "input_schema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "text": {"type": "string"}},
            "required": ["title", "text"],
        },
    }
    fields.update(overrides)
    return ApprovalRequest(**fields)


def test_approval_card_validates_edits_and_answers(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        card = ApprovalCard(_request())
        qtbot.addWidget(card)
        card.editor.setPlainText("{not json")
        card.allow_once.click()
        assert not card.reply.done() and "not valid JSON" in card.problem.text()
        card.editor.setPlainText('{"title": 3, "text": "b"}')
        card.allow_once.click()
        assert not card.reply.done() and "schema" in card.problem.text()
        card.editor.setPlainText('{"title": "edited", "text": "b"}')
        card.allow_chat.click()
        reply = await card.reply
        assert reply.decision is Decision.ALLOW_CHAT and reply.arguments == {"title": "edited", "text": "b"}
        assert not card.deny.isEnabled()

        placed: list[ApprovalCard] = []
        approver = CardApprover(placed.append)
        answer = asyncio.ensure_future(approver.approve(_request()))
        await asyncio.sleep(0)
        placed[0].deny.click()
        assert (await answer).decision is Decision.DENY

        waiting = asyncio.ensure_future(approver.approve(_request()))
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        assert placed[1].problem.text() == "Cancelled" and not placed[1].allow_once.isEnabled()

    run_in_qt(qapp, scenario())


def test_composer_keys_and_resource_drops(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[tuple[str, list[ResourceRef]]] = []
    composer.send_requested.connect(lambda text, refs: sent.append((text, refs)))
    ref = ResourceRef("demo", "demo://guide", "Guide", "text/markdown")
    payload = encode_resources([ref])  # the event does not own its mime data: keep it alive
    drop = QDropEvent(
        QPointF(5, 5),
        Qt.DropAction.CopyAction,
        payload,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    composer.dropEvent(drop)
    assert composer.attachments == [ref]
    composer.editor.setPlainText("Summarize this")
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert sent == [("Summarize this", [ref])]
    composer.clear()
    assert composer.attachments == [] and composer.editor.toPlainText() == ""

    with qtbot.waitSignal(composer.cancel_requested, timeout=1000):
        qtbot.keyClick(composer.editor, Qt.Key.Key_Escape)
    with qtbot.waitSignal(composer.palette_requested, timeout=1000):
        qtbot.keyClick(composer.editor, Qt.Key.Key_Slash)
    with qtbot.waitSignal(composer.palette_requested, timeout=1000):
        qtbot.keyClick(composer.editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    composer.attach([ref])
    composer.detach(ref)
    assert composer.attachments == []

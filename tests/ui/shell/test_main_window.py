"""The whole window end to end: real MCP servers over stdio, a scripted provider over HTTP, Qt offscreen."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.model.llm import load_litellm
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.attachment_chip import AttachmentChip
from desktop_app.ui.conversation.tool_card import CallState, ResourceChip, ToolCard
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers import claimed_uri_server
from tests.servers.claimed_uri_server import SHARED_URI
from tests.servers.fixture_server import LONG_END_MARKER
from tests.ui.chat_window import bubbles, run_app, shown, until
from tests.window_kit import run_window_scenario

pytestmark = LITELLM_WARNINGS
CLAIMED_URI_SCRIPT = Path(claimed_uri_server.__file__)


@pytest.mark.stdio
def test_dragged_resource_is_sent_with_provenance_and_the_answer_streams(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        llm.queue(text("It ", "ends ", "with ", "the ", "marker."))
        browser = window.resources.browser
        await until(lambda: browser.index_of("fx", "fixture://long").isValid(), what="resource in the browser")
        # Exactly what dragging the row produces.
        payload = browser.proxy.mimeData([browser.index_of("fx", "fixture://long")])
        drop = QDropEvent(
            QPointF(4, 4), Qt.DropAction.CopyAction, payload, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        )
        window.conversation_pane.dropEvent(drop)
        assert [ref.uri for ref in window.composer.attachments] == ["fixture://long"]
        window.composer.editor.setPlainText("How does it end?")
        window.composer.send()
        assert window.composer.attachments == [] and window.composer.editor.toPlainText() == ""
        await until(lambda: not window.chat.busy, what="the turn")
        [request] = llm.bodies()
        user = request["messages"][-1]["content"]
        text_of = user if isinstance(user, str) else "".join(p.get("text", "") for p in user)
        assert "Attached resource fixture://long" in text_of
        assert LONG_END_MARKER in text_of, "the attachment arrives whole"
        assert bubbles(window, "assistant")[-1].text == "It ends with the marker."
        [sent] = bubbles(window, "user")
        assert sent.text == "How does it end?"
        assert [chip.ref.uri for chip in sent.findChildren(AttachmentChip)] == ["fixture://long"]
        await until(lambda: window.history.list.count() >= 1, what="the chat in History (listed after the turn's end)")

    run_app(qapp, tmp_path, llm, scenario)


def test_approvals_inside_tool_cards_then_the_reopened_history(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        llm.queue(
            calls(ToolCall("fx__echo", {"text": "first"})),
            calls(ToolCall("read_resource", {"uri": "fixture://data.json"})),
            calls(ToolCall("fx__echo", {"text": "second"})),
            text("Done."),
        )
        window.composer.editor.setPlainText("Echo twice")
        window.composer.send()
        await until(lambda: len(window.asker.pending) == 1, what="the first approval")
        first = window.asker.pending[0]
        assert isinstance(first, ApprovalPanel)

        def in_its_card() -> bool:  # the approval may be asked before the call's card is shown: it waits for it
            cards = window.conversation.findChildren(ToolCard)
            return len(cards) == 1 and cards[0].isAncestorOf(first)  # inside its call's card: one card per call

        await until(in_its_card, what="the approval inside its call's card")
        await until(lambda: window.focusWidget() is first, what="the keyboard on the card that asks")
        assert json.loads(first.editor.toPlainText()) == {"text": "first"}
        first.editor.setPlainText('{"text": "edited by the user"}')
        await until(lambda: first.armed, what="the panel to take Enter")
        qtbot.keyClick(first, Qt.Key.Key_Return)
        await until(lambda: len(window.asker.pending) == 1 and window.asker.pending[0] is not first, what="second")
        second = window.asker.pending[0]
        assert isinstance(second, ApprovalPanel)
        # fx is not trusted: what it returned marks the chat, and the second card says so.
        assert window.taint_chip.isVisibleTo(window)
        assert "Untrusted content in this chat: result of echo on fx" in window.taint_chip.text
        assert second.taint.isVisibleTo(second) and second.allow_chat.isHidden()
        qtbot.keyClicks(second.reason, "once is enough")
        qtbot.keyClick(second.reason, Qt.Key.Key_Return)
        await until(lambda: not window.chat.busy, what="the turn")
        results = [m["content"] for m in tool_messages(llm.bodies()[3])]
        assert "edited by the user" in results[0]
        assert results[2] == "The user declined: once is enough\n(The tool 'fx__echo' was not called.)"
        live = [
            (c.state, c.decision.text(), c.arguments.toPlainText()) for c in window.conversation.findChildren(ToolCard)
        ]
        assert [state for state, _, _ in live] == [CallState.DONE, CallState.DENIED]
        assert "edited by the user" in live[0][2], "the card shows what really ran"
        assert live[0][1] == "Allowed once by you, with your edits to the arguments"
        assert live[1][1] == "Denied by you: “once is enough”"
        chips = [c.text() for c in shown(window, ResourceChip)]
        assert chips == ["read fixture://data.json, 137 B"]
        assert bubbles(window, "assistant")[-1].text == "Done."

        # A stopped turn leaves its marker.
        llm.queue(text(*[f"w{i} " for i in range(200)], delay=0.05))
        window.composer.editor.setPlainText("Talk")
        window.composer.send()
        await until(lambda: bubbles(window, "assistant")[-1].text.startswith("w0"), what="streaming")
        window.chat.cancel()
        await until(lambda: not window.chat.busy, what="the stop")

        # Reopened, the conversation shows exactly what happened, and is still tainted.
        chat_id = window.chat.conversation.id
        window.chat_actions.new_chat()
        assert not window.taint_chip.isVisibleTo(window)
        window.chat.resume(chat_id)
        await until(lambda: len(shown(window, ToolCard)) == 2, what="the reopened conversation")
        reopened = [(c.state, c.decision.text(), c.arguments.toPlainText()) for c in shown(window, ToolCard)]
        assert reopened == live
        assert [c.text() for c in shown(window, ResourceChip)] == chips
        assert [b.text for b in bubbles(window, "info")] == ["Stopped."]
        assert window.taint_chip.isVisibleTo(window)
        assert window.taint_chip.reasons == window.chat.conversation.taint != []

    run_app(qapp, tmp_path, llm, scenario)


def test_palette_runs_a_prompt_with_arguments(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
        palette = window.command_palette
        assert palette.isVisibleTo(window)
        qtbot.keyClicks(palette.query, "greet")
        assert palette.visible_entries()[0].kind == "prompt"
        qtbot.keyClick(palette.query, Qt.Key.Key_Return)
        form = window.prompt_form
        assert form.isVisibleTo(window) and form.fields.names() == ["name"]
        form.submit()
        assert "Fill in: name" in form.problem.text()
        form.fields.field("name").setText("Ada")
        qtbot.keyClick(form.fields.field("name"), Qt.Key.Key_Return)
        await until(lambda: window.composer.editor.toPlainText(), what="prompt text in the composer")
        assert window.composer.editor.toPlainText() == "Please greet Ada warmly."

    run_app(qapp, tmp_path, llm, scenario)


def test_a_prompt_with_a_resource_link_fills_the_composer_with_text_and_a_chip(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        stored = len(window.chat.store.list())  # the test session shares one history
        prompt = next(p for _, p in window.bridge.host.catalog.prompts() if p.name == "summarize_resource")
        form = window.prompt_form
        form.open_for("demo", prompt)
        form.fields.field("uri").setText("demo://guide")
        form.submit()
        composer = window.composer
        await until(lambda: composer.attachments, what="the prompt's resource as a chip")
        assert [ref.uri for ref in composer.attachments] == ["demo://guide"]
        assert composer.editor.toPlainText().startswith("Please read the resource demo://guide")
        assert "Resource link" not in composer.editor.toPlainText()
        assert composer.prompt_label.isVisibleTo(window) and "Summarize a resource" in composer.prompt_label.text()
        assert len(window.chat.store.list()) == stored, "nothing is stored before the user sends"
        window.chat_actions.new_chat()
        assert composer.attachments == [] and composer.editor.toPlainText() == ""
        assert not composer.prompt_label.isVisibleTo(window)
        window.chat_actions.new_chat()
        assert len(window.chat.store.list()) == stored, "empty chats leave no history"

    run_app(qapp, tmp_path, llm, scenario, demo=True)


def test_escape_cancels_a_streaming_answer(qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        llm.queue(text(*[f"word{i} " for i in range(400)], delay=0.05))
        window.composer.editor.setPlainText("Talk for a long time")
        window.composer.send()
        await until(lambda: bubbles(window, "assistant") and bubbles(window, "assistant")[-1].text, what="streaming")
        assert window.composer.stop_button.isVisibleTo(window)
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Escape)
        await until(lambda: not window.chat.busy, what="cancellation")
        assert bubbles(window, "info")[-1].text == "Stopped."
        partial = bubbles(window, "assistant")[-1].text
        assert partial.startswith("word0 ") and "word399" not in partial
        assert window.composer.send_button.isVisibleTo(window)

    run_app(qapp, tmp_path, llm, scenario)


def test_first_send_without_a_model_opens_settings(qapp: QApplication, tmp_path: Path) -> None:
    async def scenario(window: MainWindow, _llm: Any) -> None:
        window.composer.editor.setPlainText("Hello?")
        window.composer.send()
        await until(lambda: window.findChildren(SettingsDialog), what="the settings dialog")
        [dialog] = window.findChildren(SettingsDialog)
        assert dialog.reason.isVisibleTo(dialog) and "Choose a model" in dialog.reason.text(), "it says why"
        assert window.composer.editor.toPlainText() == "Hello?", "the draft is kept"
        for dialog in window.findChildren(SettingsDialog):
            dialog.reject()

    run_app(qapp, tmp_path, None, scenario)


def test_the_window_opens_within_its_screen(qapp: QApplication, tmp_path: Path) -> None:
    """The offscreen screen is 800 × 800, smaller than the first-run size: the window takes the screen,
    or its own minimum where the docks need more."""

    async def scenario(window: MainWindow, _llm: Any) -> None:
        free, least = window.screen().availableGeometry(), window.minimumSizeHint()
        assert window.width() <= max(free.width(), least.width())
        assert window.height() <= max(free.height(), least.height())

    run_app(qapp, tmp_path, None, scenario)


def test_questions_go_under_their_tool_call_or_to_the_servers_panel(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    from desktop_app.core.asks.question import Question
    from desktop_app.ui.asks.card import AskCard

    class Proceed(Question[bool]):
        def fallback(self) -> bool:
            return False

    class ProceedCard(AskCard[bool]):
        def __init__(self, question: Proceed) -> None:
            super().__init__(question, "Go ahead?")
            self.yes = self.add_button("Yes", True, default=True)

    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        window.asker.register(Proceed, ProceedCard)
        llm.queue(calls(ToolCall("fx__slow", {"seconds": 3600}, id="call-1")), text("Done."))
        window.composer.editor.setPlainText("Take your time")
        window.composer.send()
        await until(lambda: len(window.asker.pending) == 1, what="the call's approval")
        approval = window.asker.pending[0]
        assert isinstance(approval, ApprovalPanel)
        qtbot.mouseClick(approval.allow_once, Qt.MouseButton.LeftButton)

        def running_card() -> ToolCard | None:
            cards = [c for c in shown(window, ToolCard) if c.call_id == "call-1" and c.state is CallState.RUNNING]
            return cards[0] if cards else None

        await until(running_card, what="the call running in its card")
        card = running_card()
        assert card is not None
        questions = window.bridge.host.questions
        during = asyncio.ensure_future(questions.ask(Proceed(server="fx", call_id="call-1")))
        outside = asyncio.ensure_future(questions.ask(Proceed(server="fx")))

        def asking() -> list[ProceedCard]:
            return [c for c in window.asker.pending if isinstance(c, ProceedCard)]

        await until(lambda: len(asking()) == 1, what="the first question's card")
        [first] = asking()
        layout = window.conversation._layout
        assert layout.indexOf(first) == layout.indexOf(card) + 1  # right under its tool call
        qtbot.mouseClick(first.yes, Qt.MouseButton.LeftButton)
        assert await during is True
        await until(lambda: len(asking()) == 1 and asking()[0] is not first, what="the second question's card")
        [second] = asking()
        await until(lambda: second.isVisibleTo(window.servers_panel), what="the card on the servers panel")
        assert window.servers_panel.selected() == "fx"
        qtbot.mouseClick(second.yes, Qt.MouseButton.LeftButton)
        assert await outside is True
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Escape)  # the hour-long call is stopped
        await until(lambda: not window.chat.busy, what="the stop")

    run_app(qapp, tmp_path, llm, scenario)


def test_a_resource_dragged_from_one_of_two_servers_listing_its_uri_is_read_from_that_server(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM
) -> None:
    """Server `a` sorts first, so a host guessing the owner from the URI would read `a`'s text."""
    script = str(CLAIMED_URI_SCRIPT)
    servers = {name: {"command": sys.executable, "args": [script, f"the note of {name}"]} for name in ("a", "b")}
    settings = AppSettings(ModelSettings("openai/scripted", api_base=llm.url), provider="compatible")

    async def steps(window: MainWindow) -> None:
        await asyncio.wait_for(load_litellm(), 120)
        llm.queue(text("Read."))
        browser = window.resources.browser
        await until(lambda: browser.index_of("b", SHARED_URI).isValid(), what="b's note in the browser")
        payload = browser.proxy.mimeData([browser.index_of("b", SHARED_URI)])
        drop = QDropEvent(
            QPointF(4, 4), Qt.DropAction.CopyAction, payload, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        )
        window.conversation_pane.dropEvent(drop)
        assert [(ref.server, ref.uri) for ref in window.composer.attachments] == [("b", SHARED_URI)]
        window.composer.editor.setPlainText("What does it say?")
        window.composer.send()
        await until(lambda: not window.chat.busy, what="the turn")
        [request] = llm.bodies()
        user = request["messages"][-1]["content"]
        sent = user if isinstance(user, str) else "".join(p.get("text", "") for p in user)
        assert "the note of b" in sent and "the note of a" not in sent

    run_window_scenario(qapp, tmp_path, steps, servers=servers, settings=settings, ready=2)

"""What the model got, in the window: the ledger of a real turn drawn offscreen, part by part; its usage
line, payload and request choice; the link on an answer; Export chat through its dialog.

One real turn (in-process MCP servers, real litellm, a provider reporting realistic usage) is
recorded once for the module; each test draws what was recorded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QToolButton, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from desktop_app.bridge import CoreBridge
from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.chat.approval import ApprovalPolicy
from desktop_app.core.chat.conversations import Conversation, ConversationStore
from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.parts import Ledger, PartKind, Section
from desktop_app.core.ledger.store import LedgerStore
from desktop_app.core.ledger.trace_view import TraceView
from desktop_app.core.model.llm import ready_litellm
from desktop_app.core.model.settings import ChatOptions, ModelSettings
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.ledger.ledger_actions import LINK_NAME, LedgerActions
from desktop_app.ui.ledger.ledger_view import LedgerView, usage_line
from desktop_app.ui.ledger.ledger_window import TITLE_CHARS, LedgerWindow, window_title
from tests.core.ledger.realistic_provider import RealisticLLM
from tests.core.ledger.secrets_check import assert_clean
from tests.hosting import FAST_RESTARTS, eventually
from tests.llm_server import LITELLM_WARNINGS, RecordingApprover, ToolCall, calls, text
from tests.servers.asking_server import build_asking_server
from tests.servers.fixture_server import build_fixture_server
from tests.servers.ledger_server import build_ledger_server
from tests.window_kit import run_in_qt

pytestmark = LITELLM_WARNINGS
API_KEY = "sk-window-ledger-test-4242424242"
ANSWER = "The meeting moved the launch to Friday."


@dataclass
class Recorded:
    store: ConversationStore
    conversation: Conversation
    servers: dict[str, Any]

    def trace(self) -> TraceView:
        return LedgerStore.beside(self.store.path).load(self.conversation.id)


def host_of(servers: dict[str, Any]) -> ServerHost:
    host = ServerHost(policy=FAST_RESTARTS, target_factory=lambda config, _hooks: servers[config.name])
    host.start(
        [
            ServerConfig(name="fx", transport=TransportKind.STDIO, command="unused"),
            ServerConfig(name="notes", transport=TransportKind.STDIO, command="unused", trusted=True),
            ServerConfig(name="asking", transport=TransportKind.STDIO, command="unused"),
        ]
    )
    return host


@pytest.fixture(scope="module")
def recorded(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    """A stored chat of one rich turn: an attachment, reads (one cut, one image), a tool with bytes, a
    prompt, a form, then the answer; and a second turn whose provider reports no usage."""
    folder = tmp_path_factory.mktemp("ledger-window")
    servers = {"fx": build_fixture_server(), "notes": build_ledger_server(), "asking": build_asking_server()}
    store = ConversationStore(folder / "conversations.sqlite3")
    conversation = Conversation.start(store, title="Meeting notes")

    def answer_forms(question: Question[Any]) -> Any:
        return ElicitReply("accept", {"name": "Ada"}) if isinstance(question, FormQuestion) else question.fallback()

    async def record(llm: RealisticLLM) -> None:
        host = host_of(servers)
        await host.wait_settled(15)
        host.questions.asker = ScriptedAsker(answer_forms)
        form = json.dumps({"type": "object", "properties": {"name": {"type": "string"}}})
        llm.queue(
            calls(
                ToolCall("read_resource", {"uri": "fixture://long"}),
                ToolCall("read_resource", {"uri": "fixture://image.png"}),
            ),
            calls(ToolCall("fx__rich", {}), ToolCall("invoke_prompt", {"name": "greet", "arguments": {"name": "Ada"}})),
            calls(ToolCall("asking__ask_form", {"schema": form})),
            text(ANSWER),
            text("No figures this time.", usage=None),
        )
        options = ChatOptions(read_cap_bytes=4096, images_to_model=True, catalog_budget=100)
        settings = ModelSettings("openai/gpt-4o", api_base=llm.url, max_tokens=200, max_retries=0)
        engine = ChatEngine(host, settings, ApprovalPolicy(RecordingApprover()), options=options)
        try:
            await engine.start_turn(
                conversation, "Summarise the meeting.", [ResourceRef("", "notes://meeting")]
            ).traced()
            await engine.start_turn(conversation, "Anything else?").traced()
        finally:
            await host.stop_all()

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", API_KEY)
        ready_litellm()
        with RealisticLLM() as llm:
            run_in_qt(qapp, record(llm))
    yield Recorded(store, conversation, servers)
    store.close()


def rows(view: LedgerView) -> dict[str, list[tuple[str, str]]]:
    """Section title → its parts as (label, tokens) as drawn."""
    drawn: dict[str, list[tuple[str, str]]] = {}
    for index in range(view.parts.topLevelItemCount()):
        head = view.parts.topLevelItem(index)
        assert head is not None
        children = [head.child(i) for i in range(head.childCount())]
        drawn[head.text(0)] = [(c.text(0), c.text(1)) for c in children if isinstance(c, QTreeWidgetItem)]
    return drawn


def open_answer(recorded: Recorded, qtbot: QtBot) -> tuple[LedgerWindow, Ledger]:
    """The ledger window on the request behind the recorded answer."""
    trace = recorded.trace()
    answer = trace.request_for_answer(ANSWER)
    assert answer is not None and answer.ledger is not None
    window = LedgerWindow()
    qtbot.addWidget(window)
    window.show_request(trace, answer, "Meeting notes")
    return window, answer.ledger


def test_the_window_title_carries_a_long_chats_title_cut_at_a_word() -> None:
    long = "What is the guide's key idea? Save it as a note, and show me how a script reads it."
    title = window_title(long)
    assert title.startswith("What the model got — What is the guide's key idea?") and title.endswith("…")
    assert len(title) <= len("What the model got — ") + TITLE_CHARS + 1
    assert window_title("  Meeting\nnotes ") == "What the model got — Meeting notes"
    assert window_title("") == "What the model got"


def test_what_was_cut_takes_no_more_height_than_its_lines(recorded: Recorded, qtbot: QtBot) -> None:
    window, _ = open_answer(recorded, qtbot)
    qtbot.waitExposed(window)
    view = window.view
    parts, below = view.split.sizes()
    assert below <= max(view.below.sizeHint().height(), (parts + below) // 3 + 1), "the rest goes to the parts"


def test_the_parts_are_drawn_by_section_and_add_up_to_the_count(recorded: Recorded, qtbot: QtBot) -> None:
    window, ledger = open_answer(recorded, qtbot)
    assert window.windowTitle() == "What the model got — Meeting notes"
    view = window.view
    drawn = rows(view)
    assert list(drawn) == ["System prompt", "Tool schemas", "Messages"]
    for section, title in zip(Section, drawn, strict=True):
        assert drawn[title] == [(p.label, f"{p.tokens:,}") for p in ledger.in_section(section)]
    totals = [int(view.parts.topLevelItem(i).text(1).replace(",", "")) for i in range(3)]  # type: ignore[union-attr]
    assert sum(totals) == ledger.counted
    # What was cut or capped, and why; the provider's figure beside the count.
    cuts = view.cuts.text()
    assert "fixture://long: cut at the read cap of 4.0 KB" in cuts and "sent as descriptors" in cuts
    assert "The catalog is bounded to its budget" in cuts and 'The instructions of "fx" are left out' in cuts
    assert view.usage.text() == usage_line(ledger)
    assert view.usage.text().startswith(f"{ledger.counted:,} tokens by MCP Desk's count · the provider reported ")
    assert ledger.agrees() and "more apart" not in view.usage.text()
    assert view.notes.text().startswith("Counted with tiktoken o200k_base")


@pytest.mark.parametrize(
    ("kind", "label"),
    [
        (PartKind.GUIDANCE, "MCP Desk's guidance"),
        (PartKind.INSTRUCTIONS, 'Instructions of "notes"'),
        (PartKind.CATALOG, 'Catalog of "fx" (0 lines)'),
        (PartKind.TOOLS, 'Tools of "notes" (2)'),
        (PartKind.MESSAGE, "Your message"),
        (PartKind.RESOURCE, "Resource notes://meeting (attached)"),
        (PartKind.TOOL_RESULT, "Result of fx · rich"),
        (PartKind.PROMPT, "Prompt greet message"),
        (PartKind.IMAGE, "Image of fixture://image.png"),
        (PartKind.FRAMING, "Roles and message framing"),
    ],
)
def test_each_kind_of_part_has_its_row_with_its_tokens_and_its_text(
    recorded: Recorded, qtbot: QtBot, kind: PartKind, label: str
) -> None:
    window, ledger = open_answer(recorded, qtbot)
    [part] = [p for p in ledger.parts if p.label == label]
    assert part.kind is kind
    head = window.view.parts.topLevelItem(list(Section).index(part.section))
    assert head is not None
    [row] = [head.child(i) for i in range(head.childCount()) if head.child(i).text(0) == label]  # type: ignore[union-attr]
    assert row is not None and row.text(1) == f"{part.tokens:,}" and part.tokens > 0
    assert row.text(2) == f"{part.tokens / ledger.counted:.1%}"
    assert row.toolTip(0) == (f"{label}\n\n{part.preview}" if part.preview else label)


def test_the_payload_as_sent_is_shown_and_copied_and_other_requests_are_a_choice_away(
    recorded: Recorded, qtbot: QtBot
) -> None:
    trace = recorded.trace()
    answer = trace.request_for_answer(ANSWER)
    assert answer is not None and answer.payload is not None
    window = LedgerWindow()
    qtbot.addWidget(window)
    window.show_request(trace, answer)
    view = window.view
    assert view.selector.count() == 4 and view.selector.currentIndex() == 3
    assert view.selector.itemText(0) == "Request 1 of 4 — the model called read_resource, read_resource"
    assert view.selector.itemText(3) == "Request 4 of 4 — the answer"
    view.tabs.setCurrentIndex(1)
    assert json.loads(view.payload.toPlainText()) == answer.payload
    assert view.payload_where.text().startswith("The body the provider received at http://127.0.0.1:")
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(view.copy, Qt.MouseButton.LeftButton)
    assert json.loads(QGuiApplication.clipboard().text()) == answer.payload
    # Another request of the same turn, chosen with the keyboard.
    view.selector.setFocus()
    qtbot.keyClick(view.selector, Qt.Key.Key_Home)
    assert view.selector.currentIndex() == 0
    first = trace.requests(answer.turn)[0]
    assert first.ledger is not None and view.usage.text() == usage_line(first.ledger)
    assert json.loads(view.payload.toPlainText()) == first.payload
    # A request whose provider reported nothing says so.
    quiet = trace.request_for_answer("No figures this time.")
    assert quiet is not None
    window.show_request(trace, quiet)
    assert view.usage.text().endswith("· the provider reported no usage for this request")
    assert_clean([LedgerStore.beside(recorded.store.path).path(recorded.conversation.id)], [API_KEY])


class ChatStandIn(QObject):
    """The chat controller's side the ledger uses: the chat on screen and when it settles."""

    busy_changed = Signal(bool)
    conversations_changed = Signal()

    def __init__(self, conversation: Conversation) -> None:
        super().__init__()
        self.conversation = conversation


def test_an_answer_links_to_its_ledger_and_the_chat_exports(
    recorded: Recorded, qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    reopened = Conversation.resume(recorded.store, recorded.conversation.id)
    window = QMainWindow()
    qtbot.addWidget(window)
    view = ConversationView()
    window.setCentralWidget(view)
    window.resize(1024, 640)
    window.show()
    chat = ChatStandIn(reopened)
    view.show_history(reopened.messages, reopened.events)

    async def scenario() -> None:
        host = host_of(recorded.servers)
        await host.wait_settled(15)
        actions = LedgerActions(window, view, chat, CoreBridge(host))
        try:
            chat.conversations_changed.emit()  # the chat was opened: its answers get their links
            answers = actions.answers()
            assert [b.text for b in answers] == [ANSWER, "No figures this time."]
            link = answers[0].findChild(QToolButton, LINK_NAME)
            assert link is not None and link.isVisible() and link.text() == "What the model got"
            qtbot.mouseClick(link, Qt.MouseButton.LeftButton)
            ledger_window = actions.ledger_window
            assert ledger_window is not None and ledger_window.isVisible()
            assert ledger_window.view.selector.currentText() == "Request 4 of 4 — the answer"
            chat.busy_changed.emit(False)  # a turn ended: no answer gets a second link
            assert len(answers[0].findChildren(QToolButton, LINK_NAME)) == 1

            exported: list[Any] = []
            actions.sig_exported.connect(exported.append)
            dialog = actions.export_chat()
            assert isinstance(dialog, QFileDialog) and dialog.isVisible()
            dialog.selectFile(str(tmp_path / "meeting.md"))
            dialog.accept()
            await eventually(lambda: exported, what="the export")
            [done] = exported
            assert done.markdown == tmp_path / "meeting.md" and done.trace == tmp_path / "meeting.jsonl"
            assert "# Meeting notes" in done.markdown.read_text() and done.traced_turns == 2
            assert window.statusBar().currentMessage().startswith("Exported the chat to ")
            assert_clean([done.markdown, done.trace], [API_KEY])
        finally:
            await host.stop_all()

    run_in_qt(qapp, scenario())

"""An empty chat suggests things to try with what is connected: a prompt (its form opens, as from the palette),
a resource (attached from the server that listed it, as a drag does) and a question for a server (typed into
the composer). Nothing is sent and no tool runs. A server's titles and names are inert plain text on one
line, elided; the suggestions follow servers connecting and leaving, and leave with the first message."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_app.bridge import CoreBridge
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.qt_kit.theme import restyle, tokens
from desktop_app.qt_kit.tokens import DARK
from desktop_app.ui.chat.first_steps_offer import FirstStepsOffer
from desktop_app.ui.chat.prompt_form import PromptForm
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.first_steps import ASK_TEXT, HEADING, MAX_WIDTH, SuggestionButton
from desktop_app.ui.conversation.pane import ConversationPane
from desktop_app.ui.shell.application import apply_theme
from desktop_app.ui.widgets.empty_state import FIRST_STEPS_NOTHING
from tests.hosting import eventually
from tests.servers.claimed_uri_server import SHARED_URI, build_claimed_uri_server
from tests.window_kit import inprocess_bridge, run_in_qt

HOSTILE = "<b>x</b><img src=http://127.0.0.1:1/>\u202eevil\nline\r\n" + "y" * 400
"""Markup that would fetch a picture, a bidi override, line breaks, and far more than a line's worth."""


class Column:
    """The conversation's column as the window has it: the view, the prompt form and the composer."""

    def __init__(self, qtbot: QtBot, bridge: CoreBridge) -> None:
        self.view = ConversationView()
        self.form = PromptForm(bridge)
        self.composer = Composer()
        self.pane = ConversationPane(self.view, self.form, self.composer)
        qtbot.addWidget(self.pane)
        self.pane.resize(760, 640)
        self.pane.show()
        qtbot.waitExposed(self.pane)
        self.offer = FirstStepsOffer(bridge, self.view.first_steps, self.composer, self.form)
        self.sent: list[Any] = []
        self.composer.send_requested.connect(lambda *sent: self.sent.append(sent))
        self.form.submitted.connect(lambda *sent: self.sent.append(sent))

    def buttons(self) -> list[SuggestionButton]:
        return self.view.first_steps.buttons

    def words(self) -> list[str]:
        return [button.accessibleName() for button in self.buttons()]


def hostile_server(calls: list[str]) -> MCPServer:
    server = MCPServer("hostile")

    @server.prompt(name="greet", title=HOSTILE, description=HOSTILE)
    def greet() -> str:
        calls.append("prompt")
        return "Hello."

    @server.resource("note://hostile", name="note", title=HOSTILE, mime_type="text/plain")
    def note() -> str:
        calls.append("resource")
        return "A note."

    @server.tool(name="wipe", description="Wipes.")
    def wipe() -> str:
        calls.append("tool")
        return "wiped"

    return server


def test_a_hostile_servers_titles_are_inert_plain_text_on_one_elided_line(qtbot: QtBot, qapp: QApplication) -> None:
    calls: list[str] = []

    async def scenario() -> None:
        bridge = await inprocess_bridge({"hostile": hostile_server(calls)})
        try:
            column = Column(qtbot, bridge)
            await eventually(lambda: len(column.buttons()) == 3, what="a prompt, a resource and a question")
            prompt, resource, ask = column.buttons()
            assert [b.suggestion.kind for b in (prompt, resource, ask)] == ["prompt", "resource", "ask"]
            assert column.view.first_steps.heading.text() == HEADING and not column.view.first_steps.note.isVisible()
            for button in (prompt, resource):
                labels = [button.verb, button.name, button.origin]
                assert all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)
                whole = button.name.text()
                assert whole.startswith("<b>x</b><img src=http://127.0.0.1:1/>\\u202eevil line y")
                assert not {"\u202e", "\n", "\r"} & set(whole + button.accessibleName())
                assert "\u202e" not in button.toolTip() and button.toolTip().count("\n") == 1, "the name on one line"
                assert len(whole) <= 160, "a server's essay is cut before it is drawn"
                laid_out = lambda b=button: b.width() <= MAX_WIDTH and QLabel.text(b.name).endswith("…")  # noqa: E731
                await eventually(laid_out, what="elided to the room of the column")
                assert button.sizeHint().width() <= MAX_WIDTH and button.name.width() > 100
                assert button.height() < 80, "one line: no picture, no second line"
                assert button.toolTip().startswith("<p") and "&lt;b&gt;x&lt;/b&gt;&lt;img" in button.toolTip()
                assert QLabel.text(button.origin) == "from hostile"
            assert ask.accessibleName() == "Ask what hostile can do: put a question for it in the message box"
            assert resource.accessibleName().startswith("Attach <b>x</b>") and "from hostile" in resource.toolTip()

            # Clicking opens, attaches and types; nothing goes to a model or runs on the server.
            qtbot.mouseClick(prompt, Qt.MouseButton.LeftButton)
            assert column.form.isVisible() and "from hostile" in column.form.heading.text()  # the palette's form
            resource.setFocus()
            qtbot.keyClick(resource, Qt.Key.Key_Space)  # the keyboard works as the mouse does
            assert column.composer.attachments == [ResourceRef("hostile", "note://hostile", HOSTILE, "text/plain")]
            column.composer.editor.setPlainText("My draft.")
            qtbot.mouseClick(ask, Qt.MouseButton.LeftButton)
            assert column.composer.editor.toPlainText() == "My draft.\n" + ASK_TEXT.format(server="hostile")
            column.composer.editor.undo()
            assert column.composer.editor.toPlainText() == "My draft.", "the question is one undo away"
            assert column.sent == [] and calls == [] and column.view.messages() == []
            assert column.view.first_steps.isVisible(), "still an empty chat"
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_attach_takes_the_resource_from_the_server_that_listed_it(qtbot: QtBot, qapp: QApplication) -> None:
    async def scenario() -> None:
        servers = {"alpha": build_claimed_uri_server("alpha's note"), "beta": build_claimed_uri_server("beta's note")}
        bridge = await inprocess_bridge(servers)
        try:
            column = Column(qtbot, bridge)
            await eventually(lambda: len(column.buttons()) == 2, what="both servers' notes")
            assert column.words() == ["Attach note, from alpha", "Attach note, from beta"]
            qtbot.mouseClick(column.buttons()[1], Qt.MouseButton.LeftButton)
            [ref] = column.composer.attachments
            assert ref == ResourceRef("beta", SHARED_URI, "note", "text/plain")
            [content] = await bridge.host.read_resource(ref.uri, ref.server)  # as the message will read it
            assert content.text == "beta's note"
            assert column.composer.editor.hasFocus() and column.sent == []
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_the_suggestions_follow_servers_and_leave_with_the_first_message(qtbot: QtBot, qapp: QApplication) -> None:
    calls: list[str] = []

    async def scenario() -> None:
        servers: dict[str, MCPServer] = {}
        bridge = await inprocess_bridge(servers)
        try:
            column = Column(qtbot, bridge)
            steps = column.view.first_steps
            assert column.buttons() == [] and steps.note.isVisible() and steps.note.text() == FIRST_STEPS_NOTHING
            assert "Servers → Add server…" in FIRST_STEPS_NOTHING and "Servers → Find servers…" in FIRST_STEPS_NOTHING
            assert steps.note.textFormat() == Qt.TextFormat.PlainText and not steps.heading.isVisible()

            servers["late"] = hostile_server(calls)
            await bridge.host.apply([ServerConfig(name="late", transport=TransportKind.STDIO, command="unused")])
            await eventually(lambda: len(column.buttons()) == 3, what="the server that connected")
            assert "from late" in column.words()[0] and not steps.note.isVisible()

            column.view.add_user_message("Hello")
            assert not steps.isVisible(), "gone with the first message"
            column.view.clear()  # a new chat
            assert steps.isVisible() and len(column.buttons()) == 3

            await bridge.host.remove("late")
            await eventually(lambda: column.buttons() == [], what="the suggestions of a server that left")
            assert steps.note.isVisible() and steps.note.text() == FIRST_STEPS_NOTHING
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_the_model_card_sits_above_the_suggestions_and_both_follow_the_theme(qtbot: QtBot, qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"hostile": hostile_server([])})
        try:
            column = Column(qtbot, bridge)
            await eventually(lambda: len(column.buttons()) == 3, what="the suggestions")
            card = QLabel("Choose a model")
            column.view.set_empty_card(card)
            assert card.isVisible() and card.y() < column.view.first_steps.y()
            button = column.buttons()[0]
            assert tokens().raised in button.styleSheet()
            try:
                apply_theme(qapp, "dark")
                restyle()
                assert DARK.raised in button.styleSheet() and DARK.accent in button.verb.styleSheet()
            finally:
                apply_theme(qapp, "system")
                restyle()
            column.view.set_empty_card(None)
            assert not card.isVisible() and column.view.first_steps.isVisible()
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())

"""A server's words in the approval card, the tool card and an attachment chip are shown as text.

Qt reads a label's text as rich text when it looks like markup: a tool description of
`<img src="/dev/zero">` made the window read that file as an image until it ran out of memory, and
other markup drew pictures or fake badges in the card the user decides on.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.approval import ApprovalRequest
from desktop_app.core.content import ResourceContent
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.attachment_chip import AttachmentChip
from desktop_app.ui.conversation.tool_card import ToolCard
from tests.window_kit import run_in_qt

HOSTILE = '<img src="/dev/zero" width=900 height=600><b style="color:green">✔ Verified safe</b>'


def _labels_showing(widget: QWidget, text: str) -> list[QLabel]:
    return [label for label in widget.findChildren(QLabel) if text in label.text()]


def test_a_tool_description_is_plain_text_in_the_approval_and_the_tool_card(qtbot: QtBot, qapp: QApplication) -> None:
    async def scenario() -> None:  # a card's answer is a future of the running loop
        panel = ApprovalPanel(ApprovalRequest(server="evil", tool="save", description=HOSTILE))
        card = ToolCard("c1", "evil", "save", {}, description=HOSTILE * 20)
        for widget in (panel, card):
            qtbot.addWidget(widget)
            widget.show()
            shown = _labels_showing(widget, "/dev/zero")
            assert shown, "the description is shown"
            assert all(label.textFormat() == Qt.TextFormat.PlainText for label in shown)
            assert all(label.sizeHint().height() < 300 for label in shown), "no 600-pixel picture"
        assert "&lt;img" in card.description.toolTip(), "the full description's tooltip is escaped"

    run_in_qt(qapp, scenario())


def test_a_result_type_and_an_attachment_name_are_plain_text(qtbot: QtBot) -> None:
    card = ToolCard("c2", "evil", "fetch", {})
    qtbot.addWidget(card)
    card.set_result(
        "ok", is_error=False, denied=False, structured=None, binaries=[ResourceContent("x:1", HOSTILE, data=b"abc")]
    )
    card.show()
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in _labels_showing(card, "/dev/zero"))
    chip = AttachmentChip(ResourceRef(server="evil", uri="x:1", name=HOSTILE, mime_type=None))
    qtbot.addWidget(chip)
    chip.show()
    assert chip.label.textFormat() == Qt.TextFormat.PlainText
    assert chip.toolTip().startswith("<p") and "&lt;img" in chip.toolTip()


def test_what_a_reopened_chat_keeps_of_servers_and_apps_is_plain_text(qtbot: QtBot) -> None:
    from desktop_app.core.chat.events import AppToolRecord, AppViewRecord, QuestionRecord
    from desktop_app.core.model.local_servers import LocalServer
    from desktop_app.ui.conversation.model_chooser import LocalRow
    from desktop_app.ui.conversation.record_cards import NO_STILL, AppStill, QuestionRecordCard, app_call_line

    record = QuestionRecordCard(QuestionRecord(HOSTILE, HOSTILE, HOSTILE, None, ((HOSTILE, HOSTILE),)))
    line = app_call_line(AppToolRecord("evil", HOSTILE, HOSTILE, {"x": HOSTILE}, True, "user"))
    garbage = AppStill(AppViewRecord("c1", "evil", HOSTILE, snapshot="not a picture <img>"))
    row = LocalRow(LocalServer(HOSTILE, 1234, "openai", (HOSTILE,)))  # names from whatever listens on a port
    for widget in (record, line, garbage, row):
        qtbot.addWidget(widget)
        widget.show()
    shown = [label for w in (record, line, row) for label in [w, *w.findChildren(QLabel)] if isinstance(label, QLabel)]
    shown = [label for label in shown if "/dev/zero" in label.text()]
    assert len(shown) >= 5 and all(label.textFormat() == Qt.TextFormat.PlainText for label in shown)
    assert all(label.sizeHint().height() < 300 for label in shown), "no 600-pixel picture"
    assert garbage.note.text() == NO_STILL and not garbage.picture.isVisibleTo(garbage)
    assert row.models.itemText(0) == HOSTILE

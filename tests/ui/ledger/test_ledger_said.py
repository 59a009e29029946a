"""The ledger window shows what each server whose content reached a request says it is: one plain line per
server under the name from the configuration, worded as its own claim; a trace whose recorded claims are
hostile shows none of them, and the window stays up with the rest of the ledger."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop_app.core.ledger.claims import SaidBy, ServerClaim, one_line
from desktop_app.core.ledger.parts import Ledger, Part, PartKind, Section
from desktop_app.core.ledger.trace import FORMAT, VERSION, load_trace
from desktop_app.core.ledger.trace_view import TraceView
from desktop_app.ui.ledger.ledger_view import SAID_NOTE
from desktop_app.ui.ledger.ledger_window import LedgerWindow
from tests.core.connection.claiming_server import HOSTILE

ANSWER = "Both servers answered."


def _trace(path: Path, said: Any) -> TraceView:
    """A trace file of one request whose ledger records `said` as written (JSON), read back as the app reads it."""
    parts = (
        Part(Section.MESSAGES, PartKind.MESSAGE, "Your message", 5, "Who are you?", None, 0),
        Part(Section.MESSAGES, PartKind.TOOL_RESULT, "Result of files · claim", 3, "done", "files", 2),
    )
    ledger = Ledger("openai/gpt-4o", parts).to_dict()
    records: list[dict[str, Any]] = [
        {"type": "trace", "format": FORMAT, "version": VERSION, "conversation": "c1"},
        {"type": "turn", "turn": "t1", "t": 0, "conversation": "c1", "model": "openai/gpt-4o", "message": "Who?"},
        {"type": "model_request", "turn": "t1", "t": 1, "request": 1, "api_base": "", "payload": {"messages": []}},
        {
            "type": "model_response",
            "turn": "t1",
            "t": 2,
            "request": 1,
            "message": {"role": "assistant", "content": ANSWER},
        },
        {"type": "ledger", "turn": "t1", "t": 3, "request": 1, "ledger": {**ledger, "said": said}},
    ]
    path.write_text("\n".join(json.dumps(record) for record in records) + "\n", encoding="utf-8")
    return TraceView(load_trace(path))


def _open(trace: TraceView, qtbot: QtBot) -> LedgerWindow:
    request = trace.request_for_answer(ANSWER)
    assert request is not None
    window = LedgerWindow()
    qtbot.addWidget(window)
    window.show_request(trace, request, "Claims")
    qtbot.waitExposed(window)
    return window


def test_each_servers_claim_is_a_plain_line_under_its_configured_name(tmp_path: Path, qtbot: QtBot) -> None:
    posing = ServerClaim("fx", "9.9", "Official <b>Fixture</b>", "https://fixture.example")
    capped = ServerClaim(
        one_line(HOSTILE["name"], 80), one_line(HOSTILE["version"], 40), one_line(HOSTILE["title"], 80)
    )
    said = [SaidBy("files", posing).to_dict(), SaidBy("notes", capped).to_dict()]
    window = _open(_trace(tmp_path / "trace.jsonl", said), qtbot)
    view = window.view

    assert view.said.isVisible() and view.said_title.isVisible() and view.said_note.text() == SAID_NOTE
    lines = view.said.text().split("\n")
    assert lines[0] == '• "files" says it is Official <b>Fixture</b> (fx) 9.9'
    assert lines[1].startswith('• "notes" says it is <a href=') and len(lines) == 2  # no line break got through
    assert view.said.textFormat() == Qt.TextFormat.PlainText  # markup is shown as written, never drawn
    assert "https://fixture.example" in view.said.toolTip() and "not checked" in view.said.toolTip()
    assert view.usage.text().startswith("8 tokens by MCP Desk's count")


def test_a_hostile_traces_claims_are_not_shown_and_the_window_stays_up(tmp_path: Path, qtbot: QtBot) -> None:
    hostile = [
        {"server": "files", **HOSTILE},  # uncapped, with controls and line breaks: not what the app writes
        {"server": "notes", "name": {"html": "<b>x</b>"}, "version": "1"},
        "fx says it is the filesystem",
    ]
    window = _open(_trace(tmp_path / "trace.jsonl", hostile), qtbot)
    view = window.view
    assert window.isVisible() and view.said.text() == "" and view.said.isHidden() and view.said_title.isHidden()
    assert view.usage.text().startswith("8 tokens by MCP Desk's count")  # the rest of the ledger is there
    assert view.parts.topLevelItemCount() == 1

    cases: tuple[Any, ...] = (None, "x" * 1_000_000, [[]])  # no claims, a trace from before claims were kept, junk
    for said in cases:
        window = _open(_trace(tmp_path / "other.jsonl", said), qtbot)
        assert window.isVisible() and window.view.said.isHidden() and window.view.parts.topLevelItemCount() == 1

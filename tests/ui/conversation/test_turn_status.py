"""The turn's status line: what the turn waits for and, past a second, for how long. The window's own
line as Send is pressed is tested with the model warm-up (tests/ui/test_model_warmup.py)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_app.ui.conversation.turn_status import WAITING_FOR_PROVIDER, TurnStatus


def test_the_line_names_each_wait_and_counts_seconds_past_one(qtbot: QtBot) -> None:
    now = [100.0]
    status = TurnStatus(clock=lambda: now[0])
    qtbot.addWidget(status)
    status.wait_for(WAITING_FOR_PROVIDER)
    assert status.isVisibleTo(status.parentWidget() or status) and status.text() == WAITING_FOR_PROVIDER
    now[0] += 2.4
    status._show()
    assert status.text() == "Waiting for the provider… 2 s"

"""The turn's status line: what the turn waits for and, past a second, for how long. The window's own
line as Send is pressed is tested with the model warm-up (tests/ui/chat/test_model_warmup.py)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_app.ui.conversation.turn_status import WAITING_FOR_PROVIDER, WAITING_FOR_YOU, TurnStatus


def test_the_line_names_each_wait_and_counts_seconds_past_one(qtbot: QtBot) -> None:
    now = [100.0]
    status = TurnStatus(clock=lambda: now[0])
    qtbot.addWidget(status)
    status.wait_for(WAITING_FOR_PROVIDER)
    assert status.isVisibleTo(status.parentWidget() or status) and status.text() == WAITING_FOR_PROVIDER
    now[0] += 2.4
    status._show()
    assert status.text() == "Waiting for the provider… 2 s"


def test_a_question_card_interrupts_the_wait_and_the_wait_goes_on_after_it(qtbot: QtBot) -> None:
    now = [100.0]
    status = TurnStatus(clock=lambda: now[0])
    qtbot.addWidget(status)
    status.wait_for("Calling research on everything…")
    now[0] += 3
    status.question_opened()  # a form from the tool
    status.question_opened()  # and a second one
    assert status.text() == WAITING_FOR_YOU
    now[0] += 5
    status.question_closed()
    assert status.waiting == WAITING_FOR_YOU  # one is still open
    status.question_closed()
    assert status.text() == "Calling research on everything… 8 s"  # its own clock, kept through the pause
    # A card opened while no wait is shown (an approval hides the line) leaves it hidden.
    status.done()
    status.question_opened()
    assert status.isHidden() and status.waiting == ""
    status.question_closed()
    assert status.isHidden()

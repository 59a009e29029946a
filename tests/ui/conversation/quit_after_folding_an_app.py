"""Run as a program: a model's call shows an app view in the chat, more turns fold that turn out (the view
is closed, a still of it kept in the chat), scrolling up draws the turn again with that still in its card,
more turns fold it out again, and the window is closed at once (exits 0 when it closed cleanly; see
`quit_program`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_app.core.apps.session import SessionState
from desktop_app.ui.apps.controller import AppSlot
from desktop_app.ui.conversation import older_turns
from desktop_app.ui.conversation.record_cards import STILL_NOTE, AppStill
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import eventually
from tests.llm_server import ScriptedLLM, text
from tests.ui.apps.quit_program import DEADLINE, run_program, window_with_an_app_view
from tests.ui.conversation.scrolling import wheel_up

KEPT = 2
"""Turns kept drawn here (the window keeps more): two more turns fold the app's out."""


async def plain_turns(window: MainWindow, llm: ScriptedLLM, count: int) -> None:
    for number in range(count):
        llm.queue(text(f"Answer {number}."))
        window.composer.editor.setPlainText(f"Question {number}")
        window.composer.send()
        await eventually(lambda: not window.chat.busy, DEADLINE, "the answer")


async def scenario(app: QApplication, home: Path, llm: ScriptedLLM) -> None:
    window, running, slot = await window_with_an_app_view(app, home, llm)
    view = window.conversation
    app_view = slot.view
    await plain_turns(window, llm, KEPT + 1)
    await eventually(lambda: view.card("call_probe") is None, DEADLINE, "the app's turn folded out")
    assert window.apps.view_for_call("call_probe") is None and not window.apps.views, "let go of"
    await eventually(lambda: app_view.session.state is SessionState.CLOSED, DEADLINE, "the view closed")
    notches = 0
    while view.older.folded_to > 0:  # up to the top, as the wheel goes: the app's turn is drawn again, with its still
        wheel_up(view)  # not the bar: at the top already it would not move, and nothing would draw
        await asyncio.sleep(0.01)  # the notch's layout and timers run
        await eventually(lambda: not view.older.drawing, DEADLINE, "older turns drawn")
        notches += 1
        assert notches < 1_000, "the wheel never reached the first turn"
    card = view.card("call_probe")
    assert card is not None and isinstance(card.still, AppStill), "a still in its card"
    assert card.still.note.text().startswith(STILL_NOTE) and not card.still.picture.pixmap().isNull()
    assert not card.findChildren(AppSlot), "not the view itself"
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())
    await plain_turns(window, llm, 1)
    await eventually(lambda: view.card("call_probe") is None, DEADLINE, "folded out again")
    window.close()  # at once
    await asyncio.wait_for(running, DEADLINE)


if __name__ == "__main__":
    older_turns.DRAWN_TURNS = KEPT
    run_program(scenario)

"""Run as a program: a model's call shows an app view in the chat, more turns fold that turn out (the view
is closed, a still of it kept in the chat), scrolling up draws the turn again with that still in its card,
more turns fold it out again, and the window is closed at once.

A process of its own because the failure it guards against is a crash (a web page deleted with its card,
or released after its web profile), which would take a test worker with it. Exits 0 when the window closed
cleanly.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_app.app import run_window
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.apps.session import SessionState
from desktop_app.core.model.llm import ready_litellm
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.apps.controller import AppSlot
from desktop_app.ui.apps.web_engine import prepare_application
from desktop_app.ui.conversation import older_turns
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.record_cards import STILL_NOTE, AppStill
from desktop_app.ui.event_loop import qt_event_loop
from desktop_app.ui.main_window import MainWindow
from tests.hosting import eventually, main_window
from tests.llm_server import ScriptedLLM, ToolCall, calls, text

APP_SERVER = Path(__file__).parents[2] / "servers" / "app_server.py"
DEADLINE = 120.0
KEPT = 2
"""Turns kept drawn here (the window keeps more): two more turns fold the app's out."""


async def plain_turns(window: MainWindow, llm: ScriptedLLM, count: int) -> None:
    for number in range(count):
        llm.queue(text(f"Answer {number}."))
        window.composer.editor.setPlainText(f"Question {number}")
        window.composer.send()
        await eventually(lambda: not window.chat.busy, DEADLINE, "the answer")


async def scenario(app: QApplication, home: Path, llm: ScriptedLLM) -> None:
    config = home / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"apps": {"command": sys.executable, "args": [str(APP_SERVER)]}}}))
    settings = home / "settings.json"
    save_settings(settings, AppSettings(ModelSettings("openai/scripted", api_base=llm.url), provider="compatible"))
    running = asyncio.ensure_future(run_window(app, config, settings))
    window = await main_window(app, DEADLINE)
    await eventually(lambda: window.bridge.host.ready_count() == 1, DEADLINE, "the app server ready")
    llm.queue(calls(ToolCall("apps__probe", {"steps": []}, id="call_probe")), text("Here is the probe."))
    window.composer.editor.setPlainText("Show me the probe")
    window.composer.send()
    await eventually(lambda: window.findChildren(ApprovalPanel), DEADLINE, "the approval")
    window.findChildren(ApprovalPanel)[0].allow_once.click()
    view = window.conversation
    await eventually(lambda: view.findChildren(AppSlot), DEADLINE, "the view in its card")
    slot = view.findChildren(AppSlot)[0]
    await eventually(lambda: slot.view.session.state is SessionState.READY, DEADLINE, "the view ready")
    await eventually(lambda: not window.chat.busy, DEADLINE, "the answer")
    app_view = slot.view
    await plain_turns(window, llm, KEPT + 1)
    await eventually(lambda: view.card("call_probe") is None, DEADLINE, "the app's turn folded out")
    assert window.apps.view_for_call("call_probe") is None and not window.apps.views, "let go of"
    await eventually(lambda: app_view.session.state is SessionState.CLOSED, DEADLINE, "the view closed")
    bar = view.verticalScrollBar()
    while (folded := view.older.folded_to) > 0:  # up to the top: the app's turn is drawn again, with its still
        bar.setValue(0)  # at the top already, the view draws the next older turns by itself
        await eventually(
            lambda seen=folded: view.older.folded_to < seen and not view.older.drawing, DEADLINE, "older turns drawn"
        )
    card = view.card("call_probe")
    assert card is not None and isinstance(card.still, AppStill), "a still in its card"
    assert card.still.note.text().startswith(STILL_NOTE) and not card.still.picture.pixmap().isNull()
    assert not card.findChildren(AppSlot), "not the view itself"
    bar.setValue(bar.maximum())
    await plain_turns(window, llm, 1)
    await eventually(lambda: view.card("call_probe") is None, DEADLINE, "folded out again")
    window.close()  # at once
    await asyncio.wait_for(running, DEADLINE)


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-test")
    home = Path(tempfile.mkdtemp(prefix="mcp-desk-fold-"))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(home / name.lower())
    older_turns.DRAWN_TURNS = KEPT
    prepare_application()
    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    ready_litellm()
    with ScriptedLLM() as llm, asyncio.Runner(loop_factory=lambda: qt_event_loop(app)) as runner:
        runner.run(scenario(app, home, llm))
    print("closed cleanly", flush=True)


if __name__ == "__main__":
    main()

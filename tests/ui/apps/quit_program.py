"""Quitting with an MCP App view in a hard moment, run as a program of its own.

The failure these guard against is a crash (a web page deleted with its card, or released after its web
profile), which would take a test worker with it: each scenario runs in a process, and the test reads
how that process ended.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_app.app import run_window
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.apps.session import SessionState
from desktop_app.core.model.llm import ready_litellm
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.apps.controller import AppSlot
from desktop_app.ui.apps.web_engine import prepare_application
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.shell.event_loop import qt_event_loop
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import eventually
from tests.llm_server import ScriptedLLM, ToolCall, calls, text
from tests.window_kit import main_window

ROOT = Path(__file__).parents[3]
APP_SERVER = ROOT / "tests" / "servers" / "app_server.py"
DEADLINE = 120.0
CLOSED_CLEANLY = "closed cleanly"
PROGRAM_TIMEOUT = 600.0

Scenario = Callable[[QApplication, Path, ScriptedLLM], Awaitable[None]]


async def window_with_an_app_view(
    app: QApplication, home: Path, llm: ScriptedLLM
) -> tuple[MainWindow, asyncio.Future[None], AppSlot]:
    """The window with the app server, after a model's call showed the app's view in the chat (ready, the
    turn done); with the task running the window, to await after closing it."""
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
    await eventually(lambda: window.conversation.findChildren(AppSlot), DEADLINE, "the view in its card")
    slot = window.conversation.findChildren(AppSlot)[0]
    await eventually(lambda: slot.view.session.state is SessionState.READY, DEADLINE, "the view ready")
    await eventually(lambda: not window.chat.busy, DEADLINE, "the answer")
    return window, running, slot


def run_program(scenario: Scenario) -> None:
    """Run `scenario` in a fresh home with QtWebEngine and a scripted model; say so when it closed cleanly."""
    os.environ.setdefault("OPENAI_API_KEY", "sk-test")
    home = Path(tempfile.mkdtemp(prefix="mcp-desk-quit-"))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(home / name.lower())
    prepare_application()
    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    ready_litellm()
    with ScriptedLLM() as llm, asyncio.Runner(loop_factory=lambda: qt_event_loop(app)) as runner:
        runner.run(scenario(app, home, llm))
    print(CLOSED_CLEANLY, flush=True)


def assert_closes_cleanly(module: str) -> None:
    """Run the program `module` (`python -m`) and check that it ended well and no page outlived its profile."""
    done = subprocess.run(
        [sys.executable, "-m", module], cwd=ROOT, capture_output=True, text=True, timeout=PROGRAM_TIMEOUT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert CLOSED_CLEANLY in done.stdout
    assert "still not deleted" not in done.stderr  # a page outliving its profile: Qt warns, then crashes

"""Run as a program: a model's call shows an app view in the chat, New chat, then quit at once.

A process of its own because the failure it guards against is a crash (a page released after its
web profile), which would take a test worker with it. Exits 0 when the window closed cleanly.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

import qasync
from PySide6.QtWidgets import QApplication

from desktop_app.app import run_window
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.apps.session import SessionState
from desktop_app.core.model.llm import ready_litellm
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.apps.controller import AppSlot
from desktop_app.ui.apps.web_engine import prepare_application
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from tests.hosting import eventually, main_window
from tests.llm_server import ScriptedLLM, ToolCall, calls, text

APP_SERVER = Path(__file__).parents[2] / "servers" / "app_server.py"
DEADLINE = 120.0


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
    await eventually(lambda: window.conversation.findChildren(AppSlot), DEADLINE, "the view in its card")
    view = window.conversation.findChildren(AppSlot)[0].view
    await eventually(lambda: view.session.state is SessionState.READY, DEADLINE, "the view ready")
    await eventually(lambda: not window.chat.busy, DEADLINE, "the answer")
    window.chat_actions.new_chat()
    window.close()  # at once: the view is still being torn down
    await asyncio.wait_for(running, DEADLINE)


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-test")
    home = Path(tempfile.mkdtemp(prefix="mcp-desk-quit-"))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(home / name.lower())
    prepare_application()
    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    ready_litellm()
    with ScriptedLLM() as llm, asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        runner.run(scenario(app, home, llm))
    print("closed cleanly", flush=True)


if __name__ == "__main__":
    main()

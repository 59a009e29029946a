"""Take the README screenshot of an MCP App: the demo's notes board inside its tool card.

The model (a scripted local OpenAI-compatible server) adds a note and shows the board; both calls
are approved as a user would. Under Xvfb (DISPLAY set) or offscreen:

    python scripts/screenshot_apps.py [OUTPUT.png] [--viewer]   # --viewer: the board moved to the viewer
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_home = Path(tempfile.mkdtemp(prefix="mcp-desk-shot-"))
os.environ["XDG_CONFIG_HOME"] = str(_home / "config")
os.environ["XDG_DATA_HOME"] = str(_home / "data")
os.environ.setdefault("OPENAI_API_KEY", "sk-scripted")
if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync  # noqa: E402
from PySide6.QtCore import QPoint  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_app.app import run_window  # noqa: E402
from desktop_app.core.app_settings import AppSettings, default_settings_path, save_settings  # noqa: E402
from desktop_app.core.apps.session import SessionState  # noqa: E402
from desktop_app.core.model.settings import ModelSettings  # noqa: E402
from desktop_app.ui.apps.web_engine import prepare_application  # noqa: E402
from desktop_app.ui.conversation.approval_panel import ApprovalPanel  # noqa: E402
from desktop_app.ui.conversation.tool_card import ToolCard  # noqa: E402
from desktop_app.ui.shell.main_window import MainWindow  # noqa: E402
from tests.llm_server import ScriptedLLM, ToolCall, calls, text  # noqa: E402

NOTES = [
    ("Approvals", "Every real tool call waits for a yes — from the model or from an app."),
    ("Sandbox", "Apps run in an iframe sandbox with a CSP built from what they declare."),
]


async def until(check: Callable[[], object], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the screenshot scenario stalled")
        await asyncio.sleep(0.05)


async def allow_all(window: MainWindow, count: int) -> None:
    for _ in range(count):
        await until(lambda: any(p.open for p in window.findChildren(ApprovalPanel)))
        next(p for p in window.findChildren(ApprovalPanel) if p.open).allow_once.click()


async def scenario(app: QApplication, output: Path, in_viewer: bool) -> None:
    running = asyncio.ensure_future(run_window(app, _home / "config" / "servers.json"))
    await until(lambda: any(isinstance(w, MainWindow) and w.filled for w in app.topLevelWidgets()))
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    await until(lambda: window.bridge.host.ready_count() == 1)
    window.composer.editor.setPlainText("Note down approvals and the sandbox, then show me my notes board.")
    window.composer.send()
    await allow_all(window, len(NOTES) + 1)
    await until(lambda: not window.chat.busy)
    [view] = window.apps.views
    await until(lambda: view.session.state is SessionState.READY)
    if in_viewer:
        view.viewer_button.click()
    else:  # the call's card from its header down, the board inside it
        card = next(c for c in window.conversation.findChildren(ToolCard) if c.isAncestorOf(view))
        await asyncio.sleep(0.5)  # the card's layout settles before it is measured
        content = window.conversation.widget()
        assert content is not None
        top = card.mapTo(content, QPoint(0, 0)).y()
        window.conversation.verticalScrollBar().setValue(top - 8)
    await asyncio.sleep(2.0)  # let the board and the last render settle
    window.grab().save(str(output))
    print(f"wrote {output}")
    window.close()
    await running


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    output = Path(args[0]) if args else ROOT / "docs" / "apps.png"
    prepare_application()
    with ScriptedLLM() as llm:
        llm.queue(
            *[calls(ToolCall("demo__add_note", {"title": title, "text": body})) for title, body in NOTES],
            calls(ToolCall("demo__show_notes_board", {})),
            text("Here is your notes board. Click a note to tell me which one you mean, or add one from the board."),
        )
        model = ModelSettings("openai/gpt-4.1-mini", api_base=llm.url)
        save_settings(default_settings_path(), AppSettings(model, provider="compatible"))
        app = QApplication.instance() or QApplication([sys.argv[0]])
        assert isinstance(app, QApplication)
        app.setQuitOnLastWindowClosed(False)
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            runner.run(scenario(app, output, "--viewer" in sys.argv))


if __name__ == "__main__":
    main()

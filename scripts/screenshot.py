"""Take the README screenshot of the real app: the demo server, a conversation with a tool card,
and the demo PDF open in the viewer. The model is a scripted local OpenAI-compatible server.

    python scripts/screenshot.py [OUTPUT.png]      # under Xvfb (DISPLAY set) or offscreen
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
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_app.app import run_window  # noqa: E402
from desktop_app.core.app_settings import AppSettings, default_settings_path, save_settings  # noqa: E402
from desktop_app.core.model.settings import ModelSettings  # noqa: E402
from desktop_app.ui.conversation.approval_panel import ApprovalPanel  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from resources_ui.drag_payload import ResourceRef  # noqa: E402
from tests.llm_server import ScriptedLLM, ToolCall, calls, text  # noqa: E402

ANSWER = (
    "The guide's key idea is **catalog + pull**: the model sees only a short catalog of URIs, names and "
    "descriptions, then reads what it needs with `read_resource`, so documents arrive whole and the "
    "context stays small.\n\nI saved that as a note:\n\n"
    '```json\n{"title": "Catalog + pull", "saved_to": "demo://notes-log"}\n```'
)


async def until(check: Callable[[], object], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the screenshot scenario stalled")
        await asyncio.sleep(0.05)


async def scenario(app: QApplication, output: Path, llm: ScriptedLLM) -> None:
    running = asyncio.ensure_future(run_window(app, _home / "config" / "servers.json"))
    await until(lambda: any(isinstance(w, MainWindow) and w.filled for w in app.topLevelWidgets()))
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    await until(lambda: window.bridge.host.ready_count() == 1)
    window.chat_actions.open_resource(ResourceRef("demo", "demo://report.pdf", "Field report", "application/pdf"))
    window.composer.editor.setPlainText("What is the guide's key idea? Save it as a note.")
    window.composer.send()
    await until(lambda: window.asker.pending)
    approval = window.asker.pending[0]
    assert isinstance(approval, ApprovalPanel)
    approval.allow_once.click()
    await until(lambda: not window.chat.busy)
    await asyncio.sleep(1.5)  # let the PDF page and the last render settle
    window.grab().save(str(output))
    print(f"wrote {output}")
    window.close()
    await running


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.png"
    with ScriptedLLM() as llm:
        llm.queue(
            calls(ToolCall("read_resource", {"uri": "demo://guide"})),
            calls(ToolCall("demo__add_note", {"title": "Catalog + pull", "text": "Read on demand, whole."})),
            text(*[ANSWER[i : i + 40] for i in range(0, len(ANSWER), 40)]),
        )
        model = ModelSettings("openai/gpt-4.1-mini", api_base=llm.url)
        save_settings(default_settings_path(), AppSettings(model, provider="compatible"))
        app = QApplication.instance() or QApplication(sys.argv[:1])
        assert isinstance(app, QApplication)
        app.setApplicationName("MCP Desk")
        app.setOrganizationName("MCP Desk")
        app.setQuitOnLastWindowClosed(False)
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            runner.run(scenario(app, output, llm))


if __name__ == "__main__":
    main()

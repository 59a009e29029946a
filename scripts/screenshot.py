"""Take the README screenshot of the real app: the demo server, a conversation with a tool card,
and the demo PDF open in the viewer. The model is a scripted local OpenAI-compatible server.

    python scripts/screenshot.py [OUTPUT.png] [--size 1480x920] [--theme light|dark]
    python scripts/screenshot.py --sweep FOLDER    # the same window at every size we promise, light and dark

Runs under Xvfb (DISPLAY set) or offscreen.
"""

from __future__ import annotations

import argparse
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
from desktop_app.qt_kit.drag_payload import ResourceRef  # noqa: E402
from desktop_app.ui.conversation.approval_panel import ApprovalPanel  # noqa: E402
from desktop_app.ui.shell.application import apply_theme  # noqa: E402
from desktop_app.ui.shell.main_window import MainWindow  # noqa: E402
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


README_SIZE = (1480, 920)
"""The first start's size on a large screen: the README's picture."""
SWEEP_SIZES = ((800, 600), (1024, 640), (1280, 800), (1920, 1080))


async def resized(window: MainWindow, width: int, height: int) -> None:
    window.resize(width, height)
    await until(lambda: window.size().toTuple() == (width, height))
    await until(lambda: not window.dock_fit._pending.isActive())
    await asyncio.sleep(0.3)  # let the layout and the viewer's page settle at the new size


async def scenario(app: QApplication, shots: list[tuple[Path, tuple[int, int], str]]) -> None:
    running = asyncio.ensure_future(run_window(app, _home / "config" / "servers.json"))
    await until(lambda: any(isinstance(w, MainWindow) and w.filled for w in app.topLevelWidgets()))
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    await resized(window, *shots[0][1])
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
    for output, size, theme in shots:
        apply_theme(app, theme)
        await resized(window, *size)
        window.grab().save(str(output))
        print(f"wrote {output}")
    window.close()
    await running


def _shots(argv: list[str]) -> list[tuple[Path, tuple[int, int], str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", type=Path, default=ROOT / "docs" / "screenshot.png")
    parser.add_argument("--size", default="x".join(map(str, README_SIZE)), help="WIDTHxHEIGHT")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--sweep", type=Path, metavar="FOLDER", help="every size, light and dark, into FOLDER")
    args = parser.parse_args(argv)
    if args.sweep is None:
        width, _, height = args.size.partition("x")
        return [(args.output, (int(width), int(height)), args.theme)]
    args.sweep.mkdir(parents=True, exist_ok=True)
    return [
        (args.sweep / f"{theme}-{width}x{height}.png", (width, height), theme)
        for theme in ("light", "dark")
        for width, height in SWEEP_SIZES
    ]


def main() -> None:
    shots = _shots(sys.argv[1:])
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
        apply_theme(app, shots[0][2])
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            runner.run(scenario(app, shots))


if __name__ == "__main__":
    main()

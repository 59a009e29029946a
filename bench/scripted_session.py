"""A scripted user in the real window: the app's composition root in this process, real servers, a
scripted provider in a process of its own, and turns typed, sent with Ctrl+Enter and approved with
clicks. The benches of long use (no_pause.py, long_session.py, histories.py) drive it.

A turn is two model calls: a tool call (a server's tool; `read_resource` every fifth turn; the demo's
MCP App every fiftieth) and a streamed answer of about 150 tokens with a code block.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any, Final

from harness import paginated_server
from provider_process import ProviderProcess, reply

MODEL: Final = "openai/gpt-4.1-mini"
CHUNKS: Final = 30
CHUNK_DELAY: Final = 0.002
APP_EVERY: Final = 50
READ_EVERY: Final = 5
BIG: Final = "big"
DEMO: Final = "demo"


def answer_text(turn: int) -> str:
    """About 150 tokens of markdown, different in each turn: a list and a code block."""
    return (
        f"Turn {turn}: the notes agree on the plan. The freeze moves by a week and the rollback for area "
        f"{turn % 7} needs a second dry run.\n\n- **Status:** on track\n- **Owner:** the area-{turn % 7} team\n"
        f"- **Next:** run the rehearsal on staging\n\n```python\ndef check_{turn}(catalog):\n"
        f"    return [r.uri for r in catalog if 'area-{turn % 7}' in r.uri]\n```\n\nNothing else blocks it."
    )


def split(text: str, count: int = CHUNKS) -> list[str]:
    cuts = [len(text) * i // count for i in range(count + 1)]
    return [text[a:b] for a, b in pairwise(cuts)]


def turn_call(turn: int, resources: int) -> tuple[str, dict[str, Any]]:
    """The tool the model calls in `turn` (1-based), with `resources` listed by the big server."""
    from tests.servers.paginated_server import resource_uri

    if turn % APP_EVERY == 0:
        return f"{DEMO}__show_notes_board", {}
    if turn % READ_EVERY == 0 and resources:
        return "read_resource", {"uri": resource_uri(turn * 37 % resources)}
    return f"{DEMO}__get_time", {}


def turn_replies(first: int, count: int, resources: int) -> list[dict[str, Any]]:
    """The provider's script for turns `first` … `first + count - 1`."""
    replies: list[dict[str, Any]] = []
    for turn in range(first, first + count):
        name, arguments = turn_call(turn, resources)
        replies.append(reply(tool_calls=[[name, arguments, f"call_{turn}"]], delay=CHUNK_DELAY))
        replies.append(reply(text=split(answer_text(turn)), delay=CHUNK_DELAY))
    return replies


def servers(resources: int = 10_000) -> dict[str, dict[str, Any]]:
    """The demo server (tools, an MCP App) and one server listing `resources` resources."""
    from desktop_app.demo_server import demo_server_command

    command, args = demo_server_command()
    found: dict[str, dict[str, Any]] = {DEMO: {"command": command, "args": args, "timeout": 120}}
    if resources:
        found[BIG] = paginated_server(resources, tools=20)
    return found


@contextmanager
def isolated_home() -> Iterator[Path]:
    """Throw-away config and data folders for this process (the window reads them from the environment)."""
    home = Path(tempfile.mkdtemp(prefix="mcp-desk-bench-"))
    saved = {k: os.environ.get(k) for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")}
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ["XDG_CACHE_HOME"] = str(home / "cache")
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    try:
        yield home
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(home, ignore_errors=True)


async def until(check: Callable[[], object], timeout: float, what: str, poll: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(poll)


@asynccontextmanager
async def window_session(
    app: Any, home: Path, servers_config: dict[str, dict[str, Any]], provider_url: str | None
) -> AsyncIterator[Any]:
    """The real window with `servers_config`, its model the provider at `provider_url`, at 1280x800; closed on
    exit as the tests close it (`tests/window_kit.py`)."""
    from desktop_app.core.app_settings import AppSettings, save_settings
    from desktop_app.core.model.settings import ModelSettings
    from tests.window_kit import window_session as running_window

    config = home / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers_config}))
    settings = home / "settings.json"
    if provider_url is not None:
        save_settings(settings, AppSettings(ModelSettings(MODEL, api_base=provider_url)))
    async with running_window(app, config, settings) as window:
        window.resize(1280, 800)
        yield window


def catalog_listed(window: Any, resources: int) -> bool:
    host = window.bridge.host
    listed = sum(len(s.resources) for s in host.catalog.servers.values())
    return host.ready_count() == len(host.connections) and listed >= resources


def send(window: Any, text: str) -> None:
    """Put `text` in the message box and press Ctrl+Enter."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    editor = window.composer.editor
    editor.setFocus()
    editor.setPlainText(text)
    QTest.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


async def type_into(widget: Any, text: str, interval: float = 0.05) -> None:
    """Type `text` into `widget` a key at a time, `interval` apart, as a person does."""
    from PySide6.QtTest import QTest

    widget.setFocus()
    for key in text:
        QTest.keyClicks(widget, key)
        await asyncio.sleep(interval)


def approve_pending(window: Any) -> int:
    """Click Allow (for this chat where offered) on every approval on screen; returns how many."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from desktop_app.ui.conversation.approval_panel import ApprovalPanel

    clicked = 0
    for panel in list(window.asker.pending):
        if isinstance(panel, ApprovalPanel) and panel.isVisible() and panel.open:
            button = panel.allow_chat if panel.allow_chat.isVisible() else panel.allow_once
            QTest.mouseClick(button, Qt.MouseButton.LeftButton)
            clicked += 1
    return clicked


async def finish_turn(window: Any, timeout: float = 120.0) -> None:
    """Wait for the turn to end, approving its calls as they are asked."""

    def done() -> bool:
        approve_pending(window)
        return not window.chat.busy

    await until(lambda: window.chat.busy, 10, "the turn to start", poll=0.005)
    await until(done, timeout, "the end of the turn", poll=0.01)


def run_in_qt(scenario: Callable[[Any], Any]) -> Any:
    """Run `scenario(app)` (a coroutine function) on the app's kind of event loop."""
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.apps.web_engine import prepare_application
    from desktop_app.ui.shell.event_loop import qt_event_loop

    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    prepare_application()  # the MCP App views' QtWebEngine needs it before the QApplication, as the app does
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("MCP Desk")
    app.setOrganizationName("MCP Desk")
    app.setQuitOnLastWindowClosed(False)  # as run_app: quitting waits for the servers
    with asyncio.Runner(loop_factory=lambda: qt_event_loop(app)) as runner:  # the app's own loop
        return runner.run(scenario(app))


def provider(turns: int, resources: int, first: int = 1) -> ProviderProcess:
    """A scripted provider for `turns` turns, keeping only the last request bodies."""
    return ProviderProcess(replies=turn_replies(first, turns, resources), keep=2)

"""A large catalog: connecting a server of 10,000 resources and 500 tools, in the real window,
against a bare SDK client that only lists them.

The app's composition root (`run_window`) runs in this process with a scripted local model
(`tests/llm_server.py`); the model library is warmed by one turn first. Then, in alternating
rounds (so drift in the machine's load affects both alike):

- bare: a bare `mcp.Client` spawns the same stdio server and lists its resources, templates,
  prompts and tools to the last page; timed from the spawn to the last page.
- window: while the user is writing a question, the window's host starts the server under a
  new name (as at launch), timed from that moment to
  * its catalog shown: the first paint of the resource tree after the tree holds its rows;
  * the first model request: a message is sent the moment the catalog reaches the host (the
    first moment an answer can use it), timed to the request's arrival at the model;
  then the turn is awaited and the server removed again.

    python bench/catalogs.py [--rounds N] [--profile]

Goals: catalog shown and first model request each ≤ 1.2× the bare client's listing (medians of
wall time; on a loaded machine, where wall time measures the sharing, the first request's CPU
time is judged instead: the app's, every thread, and the server's, against the bare client's and
its server's). Exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from bare_client import OpenStreams, list_everything
from harness import PAGINATED, Goals, children_cpu, machine_load, median, spread
from stalls import loaded, profile_report

RESOURCES: Final = 10_000
TOOLS: Final = 500
PER_PAGE: Final = 500
ROUNDS: Final = 5
GOAL_RATIO: Final = 1.2
MODEL: Final = "openai/gpt-4.1-mini"
SERVER_ARGS: Final = (
    str(PAGINATED),
    *("--pages", str(RESOURCES // PER_PAGE), "--per-page", str(PER_PAGE)),
    *("--tools", str(TOOLS), "--templates", "10", "--prompts", "10"),
)


@dataclass
class Round:
    bare: float = 0.0
    """Seconds from the bare client's spawn to its last page."""
    bare_cpu: float = 0.0
    """CPU seconds of that listing: this process's and the server's."""
    request_cpu: float = 0.0
    """Window: CPU seconds up to the first model request: the app's (every thread) and the server's."""
    listed: float = 0.0
    """Window: seconds from adding the server to its catalog in the host."""
    shown: float = 0.0
    """Window: seconds to the first paint of the tree holding the server's rows."""
    request: float = 0.0
    """Window: seconds to the first model request's arrival at the model."""
    tools_sent: int = 0


@dataclass
class Result:
    rounds: list[Round] = field(default_factory=list)
    profile: str = ""


async def until(check: Callable[[], object], timeout: float, what: str, poll: float = 0.005) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(poll)


async def bare_listing() -> tuple[float, float]:
    """A hand-written client: spawn, connect, list everything; seconds to the last page (close not
    timed), and the CPU seconds that took (this process's and the server's)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=list(SERVER_ARGS))
    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - /dev/null never blocks
        started, cpu = time.perf_counter(), time.process_time()
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            Client(OpenStreams((read, write)), cache=None) as client,
        ):
            await list_everything(client)
            return time.perf_counter() - started, time.process_time() - cpu + server_cpu()


async def scenario(app: Any, home: Path, llm: Any, rounds: int, profile: bool) -> Result:
    from PySide6.QtCore import QEvent, QObject, QTimer

    from desktop_app.core.model import llm as llm_module
    from tests.window_kit import window_session

    config = home / "servers.json"
    config.write_text(json.dumps({"mcpServers": {}}))  # the demo server runs until one is added
    result = Result()
    async with window_session(app, config, home / "settings.json") as window:
        host, browser = window.bridge.host, window.resources.browser

        async def turn(text: str) -> None:
            window.composer.editor.setPlainText(text)
            window.composer.send()
            await until(lambda: not window.chat.busy, 180, "the end of the turn")

        window.composer.editor.insertPlainText("W")  # the user starts typing: the model library loads
        await until(lambda: llm_module._module is not None and host.ready_count() == 1, 240, "the model library")
        await turn("Warm up: say ok.")  # the first turn's one-time work (tokenizer, request path)

        class PaintClock(QObject):
            """Stamps the end of the tree's first paint once `armed`."""

            armed = False
            painted = 0.0

            def eventFilter(self, watched: QObject, event: QEvent) -> bool:
                if self.armed and not self.painted and event.type() == QEvent.Type.Paint:
                    QTimer.singleShot(0, self._stamp)  # after this paint
                return False

            def _stamp(self) -> None:
                self.painted = self.painted or time.perf_counter()

        clock = PaintClock()
        browser.view.viewport().installEventFilter(clock)
        profiler = None
        if profile:
            import cProfile

            profiler = cProfile.Profile()
        for number in range(rounds):
            bare_first = number % 2 == 0
            bare = await bare_listing() if bare_first else None
            if profiler is not None:
                profiler.enable()
            measured = await window_round(window, clock, llm, f"big-{number}")
            if profiler is not None:
                profiler.disable()
            measured.bare, measured.bare_cpu = bare or await bare_listing()
            result.rounds.append(measured)
        if profiler is not None:
            result.profile = profile_report(profiler)
    return result


async def window_round(window: Any, clock: Any, llm: Any, name: str) -> Round:
    """Add the server under `name`; time it to the tree's paint and to the first model request."""
    from desktop_app.core.catalog import ServerCatalog
    from desktop_app.core.chat import tokens
    from desktop_app.core.server_config import ServerConfig, TransportKind

    bridge, host, browser = window.bridge, window.bridge.host, window.resources.browser
    measured = Round()
    catalog_at: list[float] = []

    def on_catalog(server: str, catalog: ServerCatalog | None) -> None:
        if server == name and catalog is not None and not catalog_at:
            catalog_at.append(time.perf_counter())
            window.composer.editor.setPlainText("Which resources and tools are there?")
            window.composer.send()

    def rows_in() -> None:
        proxy = browser.proxy
        for row in range(proxy.rowCount()):
            if proxy.data(proxy.index(row, 0)) == name and proxy.match_count(row)[1] >= RESOURCES:
                clock.armed = True

    # The user is writing the question when the server starts: typing loads the tokenizer, which
    # the app gives back after each answer (its memory and reload are bench/session.py's concern).
    window.composer.editor.insertPlainText("W")
    await until(lambda: tokens._tokenizer.running, 60, "the tokenizer started as the user types")
    bridge.catalog_changed.connect(on_catalog)
    browser.proxy.layoutChanged.connect(rows_in)
    clock.armed, clock.painted = False, 0.0
    requests = len(llm.requests)
    cpu = time.process_time()
    started = time.perf_counter()
    host.start([ServerConfig(name, TransportKind.STDIO, command=sys.executable, args=SERVER_ARGS, timeout=120.0)])
    await until(lambda: len(llm.requests) > requests, 180, "the first model request")
    measured.request_cpu = time.process_time() - cpu + server_cpu()
    await until(lambda: clock.painted, 60, "the catalog shown")
    measured.listed = catalog_at[0] - started
    measured.shown = clock.painted - started
    measured.request = llm.arrivals[requests] - started
    measured.tools_sent = len(llm.requests[requests].body.get("tools") or [])
    await until(lambda: not window.chat.busy, 180, "the end of the turn")
    bridge.catalog_changed.disconnect(on_catalog)
    browser.proxy.layoutChanged.disconnect(rows_in)
    await host.remove(name)
    await until(lambda: not servers_running(), 30, "the server's process gone", poll=0.1)
    return measured


def server_cpu() -> float:
    """CPU seconds the running large-catalog server (a child of this process) has used so far."""
    return sum(servers_running())


def servers_running() -> list[float]:
    """The CPU seconds of each large-catalog server running as a child of this process."""
    return children_cpu(PAGINATED.name.encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"rounds of each kind (default {ROUNDS})")
    parser.add_argument("--profile", action="store_true", help="cProfile the window's rounds")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = Path(tempfile.mkdtemp(prefix="mcp-desk-bench-catalogs-"))
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    from PySide6.QtWidgets import QApplication

    from desktop_app.core.app_settings import AppSettings, save_settings
    from desktop_app.core.model.settings import ModelSettings
    from tests.llm_server import ScriptedLLM, text

    class TimedLLM(ScriptedLLM):
        """Stamps each request's arrival (its thread shares this process's clock)."""

        arrivals: list[float]

        async def _take(self, request: Any) -> Any:
            self.arrivals.append(time.perf_counter())
            return await super()._take(request)

    try:
        with TimedLLM() as llm:
            llm.arrivals = []
            llm.queue(*(text("ok") for _ in range(args.rounds + 1)))
            save_settings(home / "settings.json", AppSettings(ModelSettings(MODEL, api_base=llm.url)))
            app = QApplication.instance() or QApplication(sys.argv[:1])
            assert isinstance(app, QApplication)
            app.setQuitOnLastWindowClosed(False)
            from desktop_app.ui.shell.event_loop import qt_event_loop

            with asyncio.Runner(loop_factory=lambda: qt_event_loop(app)) as runner:
                result = runner.run(scenario(app, home, llm, args.rounds, args.profile))
    finally:
        shutil.rmtree(home, ignore_errors=True)

    rounds = result.rounds
    busy = loaded()
    print(
        f"A large catalog: {RESOURCES:,} resources and {TOOLS} tools over stdio, window vs bare SDK client"
        f" ({machine_load()})"
    )
    bare = [r.bare for r in rounds]
    lines = (
        ("bare SDK client, spawn → listed:", bare, [r.bare_cpu for r in rounds]),
        ("window, added → listed in the host:", [r.listed for r in rounds], None),
        ("window, added → catalog shown:", [r.shown for r in rounds], None),
        ("window, added → first model request:", [r.request for r in rounds], [r.request_cpu for r in rounds]),
    )
    for label, values, cpu in lines:
        cpu_text = f", {median(cpu) * 1000:5.0f} ms CPU" if cpu else " " * 14
        print(f"  {label:<37}{median(values) * 1000:6.0f} ms{cpu_text}   {spread(values, 1000, ' ms')}")
    print(f"  tools in the first request: {rounds[0].tools_sent} (the rest found through tool search)")
    print("  (CPU: the app's every thread and the server's; the server's start dominates both)")
    goals = Goals()
    detail = f"median of {len(rounds)} interleaved rounds"
    shown = median([r.shown / r.bare for r in rounds])
    request = median([r.request / r.bare for r in rounds])
    request_cpu = median([r.request_cpu / r.bare_cpu for r in rounds])
    if busy:
        print(f"  {'catalog shown / bare listing (wall)':<52}{shown:>11.2f}x   reported: the machine is loaded")
        print(f"  {'first model request / bare listing (wall)':<52}{request:>11.2f}x   reported: the machine is loaded")
        goals.check("first model request / bare listing (CPU)", request_cpu, GOAL_RATIO, "x", detail)
    else:
        goals.check("catalog shown / bare listing (wall)", shown, GOAL_RATIO, "x", detail)
        goals.check("first model request / bare listing (wall)", request, GOAL_RATIO, "x", detail)
        print(f"  {'first model request / bare listing (CPU)':<52}{request_cpu:>11.2f}x   reported")
    if result.profile:
        print(result.profile)
    goals.exit()


if __name__ == "__main__":
    main()

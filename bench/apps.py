"""Benchmark MCP App views: from a tool's result to the view's first paint, and what views cost in memory.

In this process, the demo server runs in-process behind the host, with one note in its log. For
each view, the clock starts when the tool result is in hand (the moment the window would make the
view: the result is handed to it at once and waits, queued, for the view's handshake) and stops at
the first frame of the view that is not blank (its widget is grabbed every few milliseconds; the
grabbing itself adds a little). The first view also pays for loading QtWebEngine and starting its
processes; later views show the steady cost. Memory is the proportional set size (PSS) of this
process and every QtWebEngine helper process it started: before any view, with the first view
painted, and with ten views open at once.

    python bench/apps.py [--views N]

Goals: the first view painted within 3 s of its tool result, a later one within 1 s; each view
after the first costs at most 60 MB. Exits 1 when a goal is missed. Offscreen (or under Xvfb when
DISPLAY is set): figures are for software rendering.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

GOAL_FIRST_S: Final = 3.0
GOAL_LATER_S: Final = 1.0
GOAL_PER_VIEW_MB: Final = 60.0
VIEWS: Final = 10
POLL_S: Final = 0.005


def pss_mb(pid: int) -> float:
    """PSS of `pid` and all its descendants, in MB (shared pages counted once, in proportion)."""
    total = 0
    for proc in [pid, *descendants(pid)]:
        try:
            for line in Path(f"/proc/{proc}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


async def main(count: int) -> int:
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from desktop_app.core.chat.app_gateway import AppGateway, wire
    from desktop_app.core.chat.approval import ApprovalPolicy, Decision, StaticApprover
    from desktop_app.core.extensions.apps_meta import ViewOrigin
    from desktop_app.demo_server import build_server
    from desktop_app.demo_server.notes_app import BOARD_URI
    from tests.window_kit import inprocess_bridge

    class Chat:
        def chat_id(self) -> str:
            return "bench"

        def taint(self) -> str | None:
            return None

        def send_app_message(self, origin: ViewOrigin, server: str, text: str) -> str | None:
            return None

        def set_app_context(self, origin: ViewOrigin, server: str, text: str) -> None:
            return None

        def app_tool_result(
            self, chat: str, origin: ViewOrigin, server: str, tool: str, text: str, is_error: bool
        ) -> None:
            return None

    server = build_server()
    server.notes.add("Benchmark", "A note for the board to show.")
    bridge = await inprocess_bridge({"demo": server})
    tool = next(t for t in bridge.host.catalog.servers["demo"].tools if t.name == "show_notes_board")
    raw = wire(await bridge.host.connection("demo").call_tool("show_notes_board", {}))
    window = QWidget()
    column = QVBoxLayout(window)
    window.resize(760, 900)
    window.show()
    await asyncio.sleep(0.2)
    baseline = pss_mb(os.getpid())
    views: list[Any] = []

    async def open_view(index: int) -> float:
        from desktop_app.ui.apps.app_view import AppView

        started = time.perf_counter()
        origin = ViewOrigin(BOARD_URI, f"call-{index}")
        gateway = AppGateway(
            bridge.host,
            "demo",
            origin,
            policy=ApprovalPolicy(StaticApprover(Decision.ALLOW_ONCE)),
            chat=Chat(),
            open_url=lambda _url: False,
        )
        view = AppView(bridge, "demo", origin, gateway, tool=tool)
        view.tool_input({})
        view.tool_result(raw)
        column.addWidget(view)
        views.append(view)
        deadline = time.monotonic() + 30
        while not view.has_painted():
            if time.monotonic() > deadline:
                raise TimeoutError("a view never painted")
            await asyncio.sleep(POLL_S)
        return time.perf_counter() - started

    first = await open_view(0)
    await asyncio.sleep(0.5)
    with_one = pss_mb(os.getpid())
    later = [await open_view(i) for i in range(1, count)]
    await asyncio.sleep(0.5)
    with_all = pss_mb(os.getpid())
    per_view = (with_all - with_one) / max(1, count - 1)
    median_later = statistics.median(later) if later else 0.0

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    print("MCP App views (the demo's notes board), tool result → first paint")
    first_ok = verdict(first <= GOAL_FIRST_S)
    print(f"  first view (loads QtWebEngine)   {first * 1000:8.0f} ms   goal ≤ {GOAL_FIRST_S:g} s  {first_ok}")
    if later:
        print(
            f"  later views, median of {len(later):<2}      {median_later * 1000:8.0f} ms   goal ≤ {GOAL_LATER_S:g} s  "
            f"{verdict(median_later <= GOAL_LATER_S)}"
        )
        print(f"  later views: {', '.join(f'{t * 1000:.0f}' for t in later)} ms")
    print("Memory (PSS of this process and its QtWebEngine processes)")
    print(f"  before any view                  {baseline:8.0f} MB")
    print(f"  first view open                  {with_one:8.0f} MB   (+{with_one - baseline:.0f} MB)")
    print(
        f"  {count} views open                     {with_all:8.0f} MB   (+{per_view:.0f} MB per view after the first)"
        f"   goal ≤ {GOAL_PER_VIEW_MB:g} MB  {verdict(per_view <= GOAL_PER_VIEW_MB)}"
    )
    print(f"  QtWebEngine processes: {len(descendants(os.getpid()))}")
    for view in views:
        await view.dispose("benchmark over")
        view.deleteLater()
    window.close()
    await asyncio.sleep(0.2)
    await bridge.host.stop_all()
    from desktop_app.ui.apps import profiles

    profiles.shut_down()
    ok = first <= GOAL_FIRST_S and median_later <= GOAL_LATER_S and per_view <= GOAL_PER_VIEW_MB
    return 0 if ok else 1


def run() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=VIEWS)
    options = parser.parse_args()
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.apps.web_engine import prepare_application

    prepare_application()
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)
    from desktop_app.ui.shell.event_loop import qt_event_loop

    with asyncio.Runner(loop_factory=lambda: qt_event_loop(app)) as runner:
        return runner.run(main(options.views))


if __name__ == "__main__":
    sys.exit(run())

"""Benchmark the resource browser and the PDF viewer against real stdio servers.

Measures the time to load 10,000 resources into the browser and to filter them as the user
types, the time to the first page of a 200-page PDF (read included), and the largest stall of
the Qt event loop in each phase. Prints the figures.

    python bench/browser.py [--offscreen]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PDF_URI = "bench://report.pdf"
PDF_PAGES = 200
RESOURCES = 10_000
TYPED = "resource-0042"


@functools.cache
def report_pdf() -> bytes:
    """200 pages of text with a header band and a box, like a real report."""
    import pymupdf

    doc = pymupdf.open()
    for number in range(1, PDF_PAGES + 1):
        page = doc.new_page()
        page.draw_rect(pymupdf.Rect(0, 0, page.rect.width, 60), color=None, fill=(0.16, 0.38, 0.78))
        page.insert_text((50, 40), f"Benchmark report, page {number}", fontsize=18, color=(1, 1, 1))
        for line in range(44):
            page.insert_text((50, 90 + line * 16), f"Line {line + 1}: measured figures for section {number}.")
        page.draw_rect(pymupdf.Rect(320, 640, 540, 780), color=(0.9, 0.5, 0.1), fill=(1, 0.95, 0.85))
    data: bytes = doc.tobytes(garbage=3, deflate=True)
    doc.close()
    return data


def serve_pdf() -> None:
    """Run as the stdio MCP server that offers the 200-page PDF."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench-pdf")

    @server.resource(PDF_URI, name="report.pdf", mime_type="application/pdf", description="200 pages")
    def report() -> bytes:
        return report_pdf()

    report_pdf()  # generated before the first read, so the read measures transport, not drawing
    server.run("stdio")


class StallMonitor:
    """A 1 ms Qt timer; the longest gap between its ticks is the longest event-loop stall.

    Full garbage collections are timed too: with tens of thousands of catalog objects alive,
    Python's own collector can pause longer than anything the widgets do.
    """

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.worst: dict[str, float] = {}
        self.worst_gc: dict[str, float] = {}
        self._gc_started = 0.0
        gc.callbacks.append(self._on_gc)
        self.phase = "start"
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(1)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def enter(self, phase: str) -> None:
        self.phase = phase
        self._last = time.perf_counter()

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            pause = time.perf_counter() - self._gc_started
            self.worst_gc[self.phase] = max(self.worst_gc.get(self.phase, 0.0), pause)

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = now - self._last
        self._last = now
        self.worst[self.phase] = max(self.worst.get(self.phase, 0.0), gap)


async def measure() -> None:
    from PySide6.QtWidgets import QApplication, QSplitter

    from desktop_app.bridge import CoreBridge
    from desktop_app.core.host import ServerHost
    from desktop_app.core.resource_ref import ResourceRef
    from desktop_app.core.server_config import ServerConfig, TransportKind
    from resources_ui.workspace import ResourceWorkspace

    fixture = ROOT / "tests" / "servers" / "fixture_server.py"
    configs = [
        ServerConfig(
            name="big",
            transport=TransportKind.STDIO,
            command=sys.executable,
            args=(str(fixture), "--pages", str(RESOURCES // 100), "--per-page", "100"),
            timeout=120,
        ),
        ServerConfig(name="pdf", transport=TransportKind.STDIO, command=sys.executable, args=(__file__, "--serve-pdf")),
    ]
    host = ServerHost()
    bridge = CoreBridge(host)
    monitor = StallMonitor()
    marks: dict[str, float] = {}
    bridge.catalog_changed.connect(lambda name, _c: marks.setdefault(f"{name} listed", time.perf_counter()))
    workspace = ResourceWorkspace(bridge)
    bridge.catalog_changed.connect(lambda name, _c: marks.setdefault(f"{name} in tree", time.perf_counter()))
    shown_side_by_side = QSplitter()  # as the window docks them: the tree beside the viewer
    shown_side_by_side.addWidget(workspace.browser)
    shown_side_by_side.addWidget(workspace.detail)
    shown_side_by_side.resize(1300, 800)
    shown_side_by_side.show()
    browser = workspace.browser
    try:
        monitor.enter("connect and list (core)")
        started = time.perf_counter()
        host.start(configs)
        await host.wait_settled(120)
        listed = marks["big listed"] - started
        monitor.enter("browser load")
        await asyncio.sleep(0.05)
        paint_started = time.perf_counter()
        browser.view.viewport().repaint()
        load = marks["big in tree"] - marks["big listed"] + time.perf_counter() - paint_started
        big = next(r for r in range(browser.proxy.rowCount()) if browser.proxy.data(browser.proxy.index(r, 0)) == "big")
        total = browser.proxy.match_count(big)[1]

        monitor.enter("filtering")
        keystrokes: list[float] = []
        for length in range(1, len(TYPED) + 1):
            key_started = time.perf_counter()
            browser.proxy.set_query(TYPED[:length])
            browser.view.viewport().repaint()
            keystrokes.append(time.perf_counter() - key_started)
            await asyncio.sleep(0.01)
        browser.filter_edit.clear()
        await asyncio.sleep(0.1)
        for char in TYPED:  # the real path: text box, debounce, filter, repaint
            browser.filter_edit.insert(char)
            await asyncio.sleep(0.03)
        await asyncio.sleep(0.1)
        typed_matches = browser.proxy.match_count(big)[0]

        monitor.enter("PDF open")
        shown: list[float] = []
        workspace.viewer.pdf_viewer.first_page_shown.connect(lambda: shown.append(time.perf_counter()))
        pdf_started = time.perf_counter()
        workspace.viewer.open(ResourceRef("pdf", PDF_URI, "report.pdf", "application/pdf"))
        while not shown:  # noqa: ASYNC110 (polled, so the first frame is timed to the millisecond)
            await asyncio.sleep(0.001)
        first_page = shown[0] - pdf_started
        monitor.enter("PDF scroll")
        pdf = workspace.viewer.pdf_viewer
        for page in range(0, PDF_PAGES, 20):
            pdf.go_to_page(page)
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)
        rendered = len(pdf.canvas.rendered_pages())
    finally:
        await host.stop_all()

    print(f"Resources listed by the server (core, stdio):   {listed * 1000:8.0f} ms  ({total:,} rows incl. templates)")
    print(f"Load into the browser (model + first paint):    {load * 1000:8.1f} ms")
    print(
        f"Filter per keystroke, {len(keystrokes)} keys of {TYPED!r}:   "
        f"median {statistics.median(keystrokes) * 1000:5.1f} ms, worst {max(keystrokes) * 1000:5.1f} ms"
        f"  ({typed_matches} match at the end)"
    )
    print(f"First page of a {PDF_PAGES}-page PDF (read incl.):    {first_page * 1000:8.1f} ms")
    print(f"Pages rendered after jumping through the PDF:   {rendered:8d} of {PDF_PAGES} (on demand)")
    print("Largest event-loop stall per phase (and the longest full GC pause within it):")
    for phase, gap in monitor.worst.items():
        if phase != "start":
            collected = monitor.worst_gc.get(phase)
            pause = f"   (GC {collected * 1000:.1f} ms)" if collected is not None else ""
            print(f"  {phase:<28} {gap * 1000:8.1f} ms{pause}")
    QApplication.closeAllWindows()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--offscreen", action="store_true", help="no window system needed")
    parser.add_argument("--serve-pdf", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_pdf:
        serve_pdf()
        return
    if args.offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    from desktop_app.ui.shell.event_loop import qt_event_loop

    with asyncio.Runner(loop_factory=lambda: qt_event_loop(app)) as runner:
        runner.run(measure())


if __name__ == "__main__":
    main()

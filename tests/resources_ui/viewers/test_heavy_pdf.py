"""A page too heavy to draw: the window stays live, the page says so, and can be drawn anyway.

Heavy by construction, never by how fast the machine is: a page no machine finishes
(`tests/endless_pdf`), or a light page given no time at all. The window's liveness is counted in
turns of Qt's event loop while such a page is being drawn, never timed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop_app.bridge import CoreBridge
from desktop_app.core.content import ResourceContent
from desktop_app.core.resource_ref import ResourceRef
from resources_ui.viewers.pdf_canvas import PdfCanvas
from resources_ui.viewers.viewer_pane import ResourceViewerPane
from tests.endless_pdf import pdf_with_an_endless_page
from tests.hosting import eventually
from tests.pdfs import LIGHT_TEXT, pdf_with_pages
from tests.servers.fixture_server import build_fixture_server
from tests.window_kit import inprocess_bridge, run_in_qt


class LoopTurns:
    """Counts the turns Qt's event loop takes while `during()` holds (a 10 ms timer fires only when
    the loop gets round to it, and once however long it waited)."""

    def __init__(self, during: Callable[[], bool]) -> None:
        self.count = 0
        self._during = during
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._turn)
        self._timer.start()

    def _turn(self) -> None:
        if self._during():
            self.count += 1

    def stop(self) -> None:
        self._timer.stop()


def _show(pane: ResourceViewerPane, name: str, data: bytes) -> None:
    uri = f"x://{name}"
    content = ResourceContent(uri, "application/pdf", data=data)
    pane.show_contents(ResourceRef("fx", uri, name, "application/pdf"), [content])


def _pane(bridge: CoreBridge) -> ResourceViewerPane:
    pane = ResourceViewerPane(bridge)
    pane.resize(900, 700)
    pane.show()
    return pane


def _notice_text(canvas: PdfCanvas, page: int) -> str:
    notice = canvas.notice(page)
    return "" if notice is None else notice.message.text()


def test_a_heavy_page_is_named_the_rest_renders_and_it_can_be_rendered_anyway(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        pane = _pane(bridge)
        pdf = pane.pdf_viewer
        canvas = pdf.canvas
        canvas.renderer.budget = 0.3
        turns = LoopTurns(during=lambda: canvas.renderer.busy)
        turns_until_named: list[int] = []

        def named(page: int) -> None:
            if page == 0 and 0 in canvas.renderer.heavy:
                turns_until_named.append(turns.count)

        canvas.renderer.page_updated.connect(named)
        try:
            _show(pane, "endless.pdf", pdf_with_an_endless_page(2, endless_page=1))
            await eventually(lambda: canvas.notice(0) is not None and canvas.notice(0).button.isVisible(), 60)
            notice = canvas.notice(0)
            assert notice is not None and notice.isVisible()
            assert "This page is too heavy to render" in notice.message.text()
            assert notice.geometry().intersects(canvas.page_rect(0))
            # The engine started and tried the page for its whole budget while the loop went on turning;
            # tried on the GUI thread, it would have held the loop from the start of the work (a turn at most).
            assert turns_until_named and turns_until_named[0] > 1, f"the loop turned {turns_until_named} times"
            pdf.go_to_page(1)  # the light pages render all the same
            await eventually(lambda: 1 in canvas.rendered_pages(), 30, "page 2")
            await eventually(lambda: canvas.page_text(1) == LIGHT_TEXT.format(number=2), 10, "its text")

            # Nothing is drawn in no time at all: with no budget left, any page is too heavy.
            canvas.renderer.budget = 0.0
            _show(pane, "light.pdf", pdf_with_pages(0))
            await eventually(lambda: "more than 0 s" in _notice_text(canvas, 0), 30, "the page named too heavy")
            notice = canvas.notice(0)
            assert notice is not None and notice.button.isVisible()
            notice.button.click()  # drawn anyway: with no limit at all
            await eventually(lambda: 0 in canvas.rendered_pages(), 60, "page 1 drawn anyway")
            assert canvas.notice(0) is None
        finally:
            turns.stop()
            canvas.renderer.shut_down()
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_the_window_stays_live_while_a_page_is_rendered_anyway_and_leaving_it_stops_it(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        pane = _pane(bridge)
        canvas = pane.pdf_viewer.canvas
        canvas.renderer.budget = 0.3
        try:
            _show(pane, "endless.pdf", pdf_with_an_endless_page())
            await eventually(lambda: canvas.notice(0) is not None and canvas.notice(0).button.isVisible(), 60)
            notice = canvas.notice(0)
            assert notice is not None
            notice.button.click()
            await eventually(lambda: "Rendering page 1 anyway" in _notice_text(canvas, 0), 10, "progress")
            assert not notice.button.isVisible()  # drawn in one band: the clock is the progress
            # Once the engine is up again (the budget ended the last one) it has this page to draw and
            # never finishes it: the turns counted from then on come while it is being drawn.
            await eventually(lambda: canvas.renderer.worker.running, 60, "the PDF engine")
            turns = LoopTurns(during=lambda: canvas.renderer.busy)
            try:
                await eventually(lambda: turns.count >= 20, 60, "turns of the event loop while the page is drawn")
            finally:
                turns.stop()
            assert canvas.renderer.forced(0) and 0 not in canvas.rendered_pages()
            assert canvas.notice(0) is notice and "Rendering page 1 anyway" in _notice_text(canvas, 0)
            # Another document: the page being drawn is abandoned, or the engine would never be free for it.
            _show(pane, "light.pdf", pdf_with_pages(0, 0))
            await eventually(lambda: 0 in canvas.rendered_pages(), 30, "the next document")
        finally:
            canvas.renderer.shut_down()
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())

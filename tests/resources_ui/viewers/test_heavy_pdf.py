"""A page too heavy to draw: the window stays live, the page says so, and can be drawn anyway."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from desktop_app.core.content import ResourceContent
from resources_ui import ResourceRef, ResourceViewerPane
from tests.hosting import StallMeter, eventually, inprocess_bridge, run_in_qt, settle
from tests.pdfs import LIGHT_TEXT, pdf_with_pages
from tests.servers.fixture_server import build_fixture_server

STALL_BOUND_S = 1.0
"""Generous: the page takes seconds to draw; drawn on the GUI thread, the loop would stall that long."""


def _show(pane: ResourceViewerPane, name: str, data: bytes) -> None:
    uri = f"x://{name}"
    content = ResourceContent(uri, "application/pdf", data=data)
    pane.show_contents(ResourceRef("fx", uri, name, "application/pdf"), [content])


def test_a_heavy_page_is_named_the_rest_renders_and_it_can_be_rendered_anyway(qapp: QApplication) -> None:
    data = pdf_with_pages(1_500, 0, 0)  # a few kilobytes; page 1 takes a second or more to draw

    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        pane = ResourceViewerPane(bridge)
        pane.resize(900, 700)
        pane.show()
        pdf = pane.pdf_viewer
        canvas = pdf.canvas
        canvas.renderer.budget = 0.3
        try:
            with StallMeter() as meter:
                _show(pane, "heavy.pdf", data)
                await eventually(lambda: canvas.notice(0) is not None and canvas.notice(0).button.isVisible(), 60)
                notice = canvas.notice(0)
                assert notice is not None and notice.isVisible()
                assert "This page is too heavy to render" in notice.message.text()
                assert notice.geometry().intersects(canvas.page_rect(0))
                pdf.go_to_page(1)  # the light pages render all the same
                await eventually(lambda: 1 in canvas.rendered_pages(), 30, "page 2")
                await eventually(lambda: canvas.page_text(1) == LIGHT_TEXT.format(number=2), 10, "its text")
                pdf.go_to_page(0)
                notice.button.click()
                await eventually(lambda: "Rendering page 1 anyway" in notice.message.text(), 10, "progress")
                assert not notice.button.isVisible()  # drawn in one band: the clock is the progress
                await eventually(lambda: 0 in canvas.rendered_pages(), 90, "page 1 drawn anyway")
                assert canvas.notice(0) is None
                await settle()
            assert meter.worst < STALL_BOUND_S, f"the event loop stalled {meter.worst:.2f} s"
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_leaving_a_page_being_rendered_anyway_stops_it_at_once(qapp: QApplication) -> None:
    huge = pdf_with_pages(400_000)  # minutes of drawing
    light = pdf_with_pages(0, 0)

    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        pane = ResourceViewerPane(bridge)
        pane.resize(900, 700)
        pane.show()
        canvas = pane.pdf_viewer.canvas
        canvas.renderer.budget = 0.3
        try:
            with StallMeter() as meter:
                _show(pane, "huge.pdf", huge)
                await eventually(lambda: canvas.notice(0) is not None and canvas.notice(0).button.isVisible(), 60)
                notice = canvas.notice(0)
                assert notice is not None
                notice.button.click()
                await eventually(lambda: "Rendering page 1 anyway" in notice.message.text(), 10, "progress")
                _show(pane, "light.pdf", light)
                await eventually(lambda: 0 in canvas.rendered_pages(), 20, "the next document")
                await settle()
            assert meter.worst < STALL_BOUND_S, f"the event loop stalled {meter.worst:.2f} s"
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())

"""The viewer pane and template form against real servers: every viewer, errors, updates, completions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QRectF, QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from desktop_app.bridge import CoreBridge
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.content import ResourceContent
from desktop_app.core.host import ServerHost
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.demo_server import build_server as build_demo_server
from resources_ui.template_form import expand_template, template_variables
from resources_ui.tree_entries import EntryKind, make_entry
from resources_ui.viewers.image_viewer import ImageError, decode_image
from resources_ui.viewers.viewer_pane import ResourceViewerPane, ViewerKind, choose_viewer
from resources_ui.workspace import ResourceWorkspace
from tests.hosting import FAST_RESTARTS, eventually
from tests.resources_ui.viewers.viewer_kit import show
from tests.servers.fixture_server import (
    LONG_END_MARKER,
    Received,
    build_fixture_server,
    huge_png_bytes,
    record_requests,
)
from tests.window_kit import inprocess_bridge, run_in_qt


def test_viewer_choice_by_content() -> None:
    def content(mime: str | None, *, text: str | None = None, data: bytes | None = None) -> ResourceContent:
        return ResourceContent(uri="x://item", mime_type=mime, text=text, data=data)

    assert choose_viewer(content("text/markdown", text="# hi")) is ViewerKind.MARKDOWN
    assert choose_viewer(content("application/json", text="{}")) is ViewerKind.TEXT
    assert choose_viewer(content("text/x-python", text="pass")) is ViewerKind.TEXT
    assert choose_viewer(content("application/pdf", data=b"%PDF-1.7")) is ViewerKind.PDF
    assert choose_viewer(content("image/png", data=b"\x89PNG")) is ViewerKind.IMAGE
    assert choose_viewer(content("application/zip", data=b"PK")) is ViewerKind.BINARY
    assert choose_viewer(ResourceContent(uri="x://bad", mime_type=None, error="bad base64")) is ViewerKind.ERROR


def test_each_fixture_resource_gets_its_viewer(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server(), "demo": build_demo_server()})
        pane = ResourceViewerPane(bridge)
        pane.resize(900, 700)
        pane.show()
        try:
            assert await show(pane, "fx", "fixture://long") is ViewerKind.TEXT
            assert pane.text_viewer.toPlainText().endswith(LONG_END_MARKER)
            assert not pane.text_viewer.highlighted

            assert await show(pane, "fx", "fixture://data.json") is ViewerKind.TEXT
            assert pane.text_viewer.highlighted
            await eventually(
                lambda: pane.text_viewer.document().findBlockByNumber(1).layout().formats(), what="colours"
            )

            assert await show(pane, "demo", "demo://guide") is ViewerKind.MARKDOWN
            markdown = pane.markdown_viewer
            assert "# Getting started" not in markdown.rendered.toPlainText()
            assert markdown.rendered.toPlainText().startswith("Getting started with MCP Desk")
            markdown.set_source_visible(True)
            assert markdown.showing_source and markdown.source.toPlainText().startswith("# Getting started")

            assert await show(pane, "fx", "fixture://image.png") is ViewerKind.IMAGE
            assert pane.image_viewer.image_size == (16, 12)
            pane.image_viewer.actual_size()
            assert pane.image_viewer.zoom == 1.0 and not pane.image_viewer.fitting
            pane.image_viewer.zoom_in()
            assert pane.image_viewer.zoom == pytest.approx(1.25)
            pane.image_viewer.fit()
            assert pane.image_viewer.fitting and pane.image_viewer.zoom > 10  # 16 px blown up to the view
            assert "16×12 px" in pane.image_viewer.info.text()

            assert await show(pane, "demo", "demo://diagram.png") is ViewerKind.IMAGE
            assert pane.image_viewer.image_size == (800, 500)
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_pdf_navigation_zoom_search_and_copy(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        pane = ResourceViewerPane(bridge)
        pane.resize(900, 700)
        pane.show()
        pdf = pane.pdf_viewer
        try:
            assert await show(pane, "fx", "fixture://doc.pdf") is ViewerKind.PDF
            assert pdf.page_count == 3 and pdf.current_page == 0 and pdf.fit_width
            await eventually(lambda: 0 in pdf.canvas.rendered_pages(), what="first page rendered")
            pdf.next_page()
            assert pdf.current_page == 1 and pdf.page_box.value() == 2
            pdf.go_to_page(2)
            assert pdf.current_page == 2
            pdf.previous_page()
            assert pdf.current_page == 1

            fitted = pdf.zoom
            pdf.zoom_in()
            assert pdf.zoom == pytest.approx(fitted * 1.25) and not pdf.fit_width
            pdf.zoom_out()
            pdf.zoom_out()
            assert pdf.zoom == pytest.approx(fitted / 1.25)
            pdf.set_fit_width(True)
            assert pdf.zoom == pytest.approx(fitted)

            pdf.search_edit.setText("omega")
            pdf.search("omega")
            await eventually(lambda: not pdf.canvas.searching, what="search done")
            assert [hit.page for hit in pdf.canvas.hits] == [2]
            assert pdf.canvas.current_hit == 0 and pdf.current_page == 2
            assert pdf.hits_label.text() == "1 of 1"
            pdf.search("page")
            await eventually(lambda: not pdf.canvas.searching, what="second search done")
            assert len(pdf.canvas.hits) == 6  # "page" twice on each of three pages
            pdf.next_hit()
            assert pdf.canvas.current_hit in range(6)

            pdf.go_to_page(0)
            assert "alpha first page" in pdf.copy_text()
            assert QGuiApplication.clipboard().text().startswith("Fixture document, page 1")
            words = pdf.canvas.words(0)
            alpha = next(w for w in words if w[4] == "alpha")
            pdf.canvas.select_rect(0, QRectF(alpha[0], alpha[1], alpha[2] - alpha[0], alpha[3] - alpha[1]))
            assert pdf.copy_text() == "alpha"
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_long_pdf_renders_on_demand(qapp: QApplication) -> None:
    doc = pymupdf.open()
    for number in range(200):
        doc.new_page().insert_text((72, 72), f"Page {number + 1} of a long report")
    data = doc.tobytes()

    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        pane = ResourceViewerPane(bridge)
        pane.resize(900, 700)
        pane.show()
        try:
            # How fast the first page comes is measured in bench/; here, that it waits for no other.
            canvas = pane.pdf_viewer.canvas
            drawn_when_shown: list[list[int]] = []
            pane.pdf_viewer.first_page_shown.connect(lambda: drawn_when_shown.append(canvas.rendered_pages()))
            pane.show_contents(
                ResourceRef("fx", "x://long.pdf", "long.pdf", "application/pdf"),
                [ResourceContent("x://long.pdf", "application/pdf", data=data)],
            )
            await eventually(lambda: drawn_when_shown, what="first page")
            assert drawn_when_shown == [[0]]
            await eventually(lambda: not pane.pdf_viewer.canvas.busy, what="idle")
            assert set(pane.pdf_viewer.canvas.rendered_pages()) <= {0, 1, 2}
            pane.pdf_viewer.go_to_page(150)
            await eventually(lambda: 150 in pane.pdf_viewer.canvas.rendered_pages(), what="page 151 rendered")
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_corrupt_pdf_and_huge_png_show_errors_and_the_app_carries_on(qapp: QApplication) -> None:
    # Refused on its header's claim, before decoding (Qt's decoder would refuse it in other words).
    with pytest.raises(ImageError, match="30,000×30,000"):
        decode_image(huge_png_bytes())

    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        pane = ResourceViewerPane(bridge)
        pane.show()
        try:
            assert await show(pane, "fx", "fixture://corrupt.pdf") is ViewerKind.ERROR
            assert "could not be opened" in pane.error_card.message.text()
            assert "does not look like application/pdf" in pane.note.text()
            assert await show(pane, "fx", "fixture://huge.png") is ViewerKind.ERROR
            assert "30,000×30,000" in pane.error_card.message.text()
            assert await show(pane, "fx", "fixture://nope") is ViewerKind.ERROR
            assert pane.error_card.heading.text() == "This resource could not be read."
            assert await show(pane, "fx", "fixture://long") is ViewerKind.TEXT
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_binary_card_saves_the_bytes(qapp: QApplication, tmp_path: Path) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        pane = ResourceViewerPane(bridge)
        try:
            blob = ResourceContent("x://archive.zip", "application/zip", data=b"PK\x03\x04 zipped")
            shown: list[ViewerKind] = []
            pane.content_shown.connect(shown.append)
            pane.show_contents(ResourceRef("fx", blob.uri, "archive.zip", "application/zip"), [blob])
            await eventually(lambda: shown, what="card")
            assert shown == [ViewerKind.BINARY]
            assert pane.binary_card.title.text() == "application/zip"
            assert "11 B (11 bytes)" in pane.binary_card.details.text()
            target = tmp_path / "saved.zip"
            pane.binary_card.save_to(str(target))
            assert target.read_bytes() == blob.data
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


async def listening_to(received: Received, uris: list[str]) -> None:
    """Wait until the latest `subscriptions/listen` the server received (2026-07-28) asks for updates of `uris`."""

    def latest() -> list[str] | None:
        listens = [params for method, params in received if method == "subscriptions/listen"]
        return listens[-1].get("notifications", {}).get("resourceSubscriptions", []) if listens else None

    await eventually(
        lambda: latest() == uris, what=f"the server asked for updates of {uris}", seen=lambda: repr(latest())
    )


def test_updated_resource_rerenders_and_subscription_follows_the_view(qapp: QApplication) -> None:
    async def scenario() -> None:
        demo = build_demo_server()
        received = record_requests(demo)
        bridge = await inprocess_bridge({"demo": demo})
        pane = ResourceViewerPane(bridge)
        pane.show()
        try:
            assert await show(pane, "demo", "demo://notes-log") is ViewerKind.MARKDOWN
            assert pane.cache.retained() == [("demo", "demo://notes-log")]
            assert pane.cache.cached("demo", "demo://notes-log") is not None
            await listening_to(received, ["demo://notes-log"])
            await bridge.host.connection("demo").call_tool("add_note", {"title": "Fresh", "text": "Seen live"})
            await eventually(lambda: "Seen live" in pane.markdown_viewer.rendered.toPlainText(), what="re-render")
            assert await show(pane, "demo", "demo://guide") is ViewerKind.MARKDOWN
            assert pane.cache.retained() == [("demo", "demo://guide")]
            await listening_to(received, ["demo://guide"])  # and no longer to the notes log
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_showing_a_resource_never_widens_the_pane(qapp: QApplication) -> None:
    """A dock grows to its content's minimum width: what a resource shows must not raise it."""

    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server(), "demo": build_demo_server()})
        pane = ResourceViewerPane(bridge)
        pane.resize(320, 600)
        pane.show()
        empty = pane.minimumSizeHint().width()
        try:
            for server, uri in [
                ("demo", "demo://report.pdf"),
                ("demo", "demo://guide"),
                ("fx", "fixture://doc.pdf"),
                ("demo", "demo://notes/a-topic-with-a-rather-long-name-that-goes-on-and-on"),
                ("fx", "fixture://corrupt.pdf"),
            ]:
                await show(pane, server, uri)
                assert pane.minimumSizeHint().width() <= max(empty, 330), f"{uri} widened the pane"
                assert pane.meta.text().startswith(uri) and pane.meta.width() <= pane.width()
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_a_view_of_the_demo_stays_read_only_once_it_steps_aside(qapp: QApplication, tmp_path: Path) -> None:
    async def scenario() -> None:
        servers = {"demo": build_demo_server(), "fx": build_fixture_server()}
        host = ServerHost(policy=FAST_RESTARTS, target_factory=lambda config, _hooks: servers[config.name])
        demo = ServerConfig(name="demo", transport=TransportKind.STDIO, command="unused")
        bridge = CoreBridge(host, None, ConfigStore(tmp_path / "servers.json"), fallback=[demo])
        stepped_aside: list[list[str]] = []
        bridge.fallback_stepped_aside.connect(stepped_aside.append)
        host.start(bridge.configured_servers())
        await host.wait_settled(15)
        pane = ResourceViewerPane(bridge)
        pane.show()
        try:
            workspace = ResourceWorkspace(bridge, pane.cache)
            note = make_entry(EntryKind.TEMPLATE, "demo", "demo://notes/{topic}", "Topic note")
            workspace.open_template(note)
            assert not workspace.template_form.isHidden()
            assert await show(pane, "demo", "demo://guide") is ViewerKind.MARKDOWN
            assert pane.reload_button.isEnabled() and not pane.server_gone
            bridge.save_server(ServerConfig(name="fx", transport=TransportKind.STDIO, command="unused"), None)
            assert stepped_aside == [["demo"]]
            await eventually(lambda: pane.server_gone, what="the view to notice its server left")
            assert workspace.template_form.isHidden(), "a form that could only fail goes"
            assert pane.current_kind is ViewerKind.MARKDOWN, "what was shown stays"
            assert pane.markdown_viewer.rendered.toPlainText().startswith("Getting started")
            assert not pane.reload_button.isEnabled() and not pane.attach_button.isEnabled()
            assert pane.note.text().startswith("Server removed") and pane.note.isVisibleTo(pane)
            pane.reload()  # (the error card's Retry) does nothing: nothing to read from
            assert pane.current_kind is ViewerKind.MARKDOWN
            bridge.save_server(
                ServerConfig(name="fx", transport=TransportKind.STDIO, command="unused", timeout=9.0), "fx"
            )
            assert stepped_aside == [["demo"]], "said once"
            await eventually(
                lambda: "fx" in host.connections and host.connection("fx").config.timeout == 9.0,
                what="the edited server",
            )
            await host.wait_settled(15)

            # A link to a demo resource (a chip in an old chat) now says why it cannot open, in words.
            assert await show(pane, "demo", "demo://report.pdf") is ViewerKind.ERROR
            shown = f"{pane.error_card.heading.text()} {pane.error_card.message.text()}"
            assert "server was removed" in shown and "Error" not in shown
        finally:
            await host.stop_all()

    run_in_qt(qapp, scenario())


def test_links_in_markdown_resolve_against_the_resource(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"demo": build_demo_server()})
        pane = ResourceViewerPane(bridge)
        pane.show()
        web: list[str] = []
        pane.web_link_requested.connect(web.append)
        shown: list[ViewerKind] = []
        pane.content_shown.connect(shown.append)
        try:
            assert await show(pane, "demo", "demo://notes/resources") is ViewerKind.MARKDOWN
            links = pane.markdown_viewer.rendered
            shown.clear()
            links.anchorClicked.emit(QUrl("#resources"))  # a heading here: no navigation
            links.anchorClicked.emit(QUrl("https://modelcontextprotocol.io/docs/concepts/resources"))
            assert web == ["https://modelcontextprotocol.io/docs/concepts/resources"], "the window asks first"
            assert pane.current_ref is not None and pane.current_ref.uri == "demo://notes/resources"
            links.anchorClicked.emit(QUrl("templates"))  # relative, as written in the note
            await eventually(lambda: shown, what="the linked note")
            assert pane.current_ref is not None and pane.current_ref.uri == "demo://notes/templates"
            assert pane.markdown_viewer.rendered.toPlainText().startswith("Resource templates")
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_template_variables_and_expansion() -> None:
    assert template_variables("demo://notes/{topic}") == ["topic"]
    assert template_variables("x://{a}/{+path}{?q,lang}") == ["a", "path", "q", "lang"]
    assert expand_template("x://{a}{?q}", {"a": "two words", "q": "é"}) == "x://two%20words?q=%C3%A9"


# The offscreen platform cannot raise or grab for the completion popup; that is not ours to fix.
@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")
def test_template_form_completes_opens_and_attaches(qapp: QApplication, qtbot: Any) -> None:
    async def scenario() -> None:
        fixture = build_fixture_server()
        received = record_requests(fixture)
        bridge = await inprocess_bridge({"fx": fixture})
        workspace = ResourceWorkspace(bridge)
        qtbot.addWidget(workspace.browser)
        qtbot.addWidget(workspace.detail)
        workspace.detail.resize(800, 700)
        workspace.detail.show()
        form = workspace.template_form
        attached: list[list[ResourceRef]] = []
        workspace.attach_requested.connect(attached.append)
        completions: list[tuple[str, list[str]]] = []
        form.completions_shown.connect(lambda name, values: completions.append((name, values)))
        try:
            entry = make_entry(EntryKind.TEMPLATE, "fx", "fixture://items/{item_id}", "item", mime_type="text/plain")
            workspace.open_template(entry)
            assert form.isVisible() and form.variables() == ["item_id"]
            assert not form.open_button.isEnabled()
            field = form.field("item_id")
            field.setFocus()
            await eventually(lambda: completions, what="completions on focus")
            assert completions[-1] == ("item_id", ["apple", "apricot", "banana"])
            qtbot.keyClicks(field, "ap")
            await eventually(lambda: completions[-1][1] == ["apple", "apricot"], what="debounced completions")
            asked = [params["argument"]["value"] for method, params in received if method == "completion/complete"]
            assert [value for value in asked if value] == ["ap"], "asked per keystroke, not once typing paused"
            assert form.suggestions("item_id") == ["apple", "apricot"]
            field.setText("apple")
            assert form.preview.text() == "fixture://items/apple"
            shown: list[ViewerKind] = []
            workspace.viewer.content_shown.connect(shown.append)
            form.open_button.click()
            await eventually(lambda: shown, what="expanded URI previewed")
            assert workspace.viewer.text_viewer.toPlainText().startswith("Item apple:")
            form.attach_button.click()
            assert attached == [[ResourceRef("fx", "fixture://items/apple", "item (apple)", "text/plain")]]
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())

"""Resources written to attack their viewers, served by a real MCP server, shown in the real viewer pane.

A server must not be able to make a viewer read a file of the user's (on Windows a `//host/share`
path would also reach the network), hide text from the user that the model reads, run a script,
or open anything outside the app.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QPoint, QRectF, Qt, QUrl, Slot
from PySide6.QtGui import QColor, QDesktopServices, QImage, QPixmap, QTextDocument
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.content import ResourceContent
from desktop_app.core.resource_ref import ResourceRef
from resources_ui.viewers.image_viewer import ImageError, decode_image, decode_thumbnail
from resources_ui.viewers.text_viewer import MarkdownViewer
from resources_ui.viewers.viewer_pane import ResourceViewerPane, ViewerKind
from tests.hosting import eventually
from tests.resources_ui.viewers.viewer_kit import show
from tests.servers.hostile_content_server import (
    FILE_LINK_RECT,
    HIDDEN_TEXT,
    LAUNCH_RECT,
    MARKUP,
    PDF_FIELD_VALUE,
    PDF_JS_VALUE,
    PLAIN_SVG,
    WEB_LINK_RECT,
    build_hostile_content_server,
    drawing_svg,
    laughs_svg,
    notes_markdown,
)
from tests.window_kit import inprocess_bridge, run_in_qt

SCHEMES = ("file", "http", "https", "mailto", "smb", "javascript")


@pytest.fixture
def secret_image(tmp_path: Path) -> Path:
    """A picture of the user's: solid red, so any pixel of it that gets drawn is easy to see."""
    path = tmp_path / "secret.png"
    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(path))
    return path


def loaded(document: QTextDocument, url: str) -> bool:
    """Whether the document holds the secret picture for `url`, once drawn (Qt caches what it read)."""
    document.documentLayout().documentSize()
    found = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(url))
    if isinstance(found, QPixmap):
        found = found.toImage()
    if isinstance(found, QByteArray):
        found = QImage.fromData(found)
    return isinstance(found, QImage) and not found.isNull() and found.pixelColor(5, 5) == QColor("red")


class _Opened(QWidget):
    """Catches every URL the app hands the desktop to open, for the schemes above."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def open_url(self, url: QUrl) -> None:
        self.urls.append(url.toString())


@contextmanager
def desktop_opens() -> Iterator[list[str]]:
    catcher = _Opened()
    for scheme in SCHEMES:
        QDesktopServices.setUrlHandler(scheme, catcher, "open_url")
    try:
        yield catcher.urls
    finally:
        for scheme in SCHEMES:
            QDesktopServices.unsetUrlHandler(scheme)
        catcher.deleteLater()


def test_markdown_shows_raw_html_as_text_and_reads_no_file(qapp: QApplication, secret_image: Path) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"hostile": build_hostile_content_server(secret_image)})
        pane = ResourceViewerPane(bridge)
        pane.resize(600, 500)
        pane.show()
        web: list[str] = []
        pane.web_link_requested.connect(web.append)
        try:
            assert await show(pane, "hostile", "hostile://notes.md") is ViewerKind.MARKDOWN
            rendered = pane.markdown_viewer.rendered
            shown = rendered.toPlainText()
            # The <style> hid everything after it; now the text the model reads is on screen, tags and all.
            assert HIDDEN_TEXT in shown and "<style>" in shown
            document = rendered.document()
            for url in (str(secret_image), f"file://{secret_image}"):
                assert not loaded(document, url), f"the viewer read {url}"
            with desktop_opens() as opened:
                for link in ("javascript:alert(1)", "file:///etc/passwd"):
                    rendered.anchorClicked.emit(QUrl(link))
                assert opened == [] and web == []
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_markdown_source_is_the_text_as_written(qtbot: QtBot, secret_image: Path) -> None:
    viewer = MarkdownViewer()
    qtbot.addWidget(viewer)
    text = notes_markdown(secret_image)
    viewer.show_markdown(text, "text/markdown", f"file://{secret_image.parent}/notes.md")
    assert viewer.source.toPlainText() == text
    # A relative image resolves against a file: base: still nothing is read.
    viewer.show_markdown("![x](secret.png)", "text/markdown", f"file://{secret_image.parent}/notes.md")
    assert not loaded(viewer.rendered.document(), "secret.png")


def test_an_svg_that_refers_outside_itself_is_not_drawn(qapp: QApplication, secret_image: Path) -> None:
    for data in (drawing_svg(secret_image),):
        with pytest.raises(ImageError, match="outside itself"):
            decode_image(data)
        assert decode_thumbnail(data, 40, 30) is None
    # An entity bomb is refused by the check before any XML parser sees it, never by a parser giving up.
    with pytest.raises(ImageError, match="declares XML entities"):
        decode_image(laughs_svg())
    assert decode_thumbnail(laughs_svg(), 40, 30) is None
    plain = decode_image(PLAIN_SVG)
    assert (plain.width(), plain.height()) == (40, 30)

    async def scenario() -> None:
        bridge = await inprocess_bridge({"hostile": build_hostile_content_server(secret_image)})
        pane = ResourceViewerPane(bridge)
        pane.show()
        try:
            # Served as SVG, it is XML text: shown as its source, never drawn.
            assert await show(pane, "hostile", "hostile://drawing.svg") is ViewerKind.TEXT
            # Labelled PNG, Qt would sniff it as SVG and draw it, the user's file included.
            assert await show(pane, "hostile", "hostile://drawing.png") is ViewerKind.ERROR
            assert "outside itself" in pane.error_card.message.text()
            # A tool's image opened from its card (bytes, said to be PNG) goes through the same check.
            ref = ResourceRef("hostile", "hostile://tool-image", "tool image")
            for data, kind in ((drawing_svg(secret_image), ViewerKind.ERROR), (PLAIN_SVG, ViewerKind.IMAGE)):
                shown: list[ViewerKind] = []
                pane.content_shown.connect(shown.append)
                pane.show_contents(ref, [ResourceContent(ref.uri, "image/png", data=data)])
                await eventually(lambda: shown, what="the tool's image shown")  # noqa: B023
                pane.content_shown.disconnect(shown.append)
                assert shown[-1] is kind
            assert pane.image_viewer.image_size == (40, 30)
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_a_pdfs_script_does_not_run_and_its_links_open_nothing(qapp: QApplication, secret_image: Path) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"hostile": build_hostile_content_server(secret_image)})
        pane = ResourceViewerPane(bridge)
        pane.resize(700, 900)
        pane.show()
        web: list[str] = []
        pane.web_link_requested.connect(web.append)
        try:
            with desktop_opens() as opened:
                assert await show(pane, "hostile", "hostile://invoice.pdf") is ViewerKind.PDF
                canvas = pane.pdf_viewer.canvas
                await eventually(lambda: 0 in canvas.rendered_pages(), what="the first page drawn")
                await eventually(lambda: canvas.words(0), what="the page's words")
                words = " ".join(word[4] for word in canvas.words(0))
                assert PDF_FIELD_VALUE in words and PDF_JS_VALUE not in words  # the opening script never ran
                for rect in (LAUNCH_RECT, FILE_LINK_RECT, WEB_LINK_RECT):
                    at = canvas.to_canvas(0, QRectF(*rect[:2], rect[2] - rect[0], rect[3] - rect[1])).center()
                    point = QPoint(round(at.x()), round(at.y()))
                    for button in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton):
                        QtBot.mouseClick(canvas, button, pos=point)
                        QtBot.mouseDClick(canvas, button, pos=point)
                QApplication.processEvents()
                assert opened == [] and web == []
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_a_resources_name_and_error_show_as_plain_text(qapp: QApplication, secret_image: Path) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"hostile": build_hostile_content_server(secret_image)})
        pane = ResourceViewerPane(bridge)
        pane.resize(600, 500)
        pane.show()
        try:
            pane.open(ResourceRef("hostile", "hostile://named", MARKUP))
            await eventually(lambda: pane.title.text() == MARKUP, what="the title")
            assert pane.title.sizeHint().height() < 100, "the name's markup was drawn"
            assert await show(pane, "hostile", "hostile://broken") is ViewerKind.ERROR
            message = pane.error_card.message
            assert "<img" in message.text() and message.sizeHint().height() < 200, "the error's markup was drawn"
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())

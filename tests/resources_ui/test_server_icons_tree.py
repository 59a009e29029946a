"""The servers' own icons in the resource tree, from a server whose icons attack it.

`tests/servers/icon_server.py` lists, beside one good PNG per item, an `http:` beacon, a `file:` URL of
a picture of the user's, a 10 MB data URI, a PNG bomb, a PNG claiming to be a JPEG, a scripted SVG
pointing at the user's file and malformed base64. The tree shows the good icon on its row, the app's
glyph where nothing good is left, nothing is fetched, and the app stays up; in-process, then over stdio.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_types import Icon
from PySide6.QtCore import QBuffer, QIODevice, QModelIndex, QRect
from PySide6.QtGui import QColor, QIcon, QImage
from PySide6.QtWidgets import QApplication

from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.qt_kit.icons import ContentKind, kind_icon
from desktop_app.qt_kit.server_icon_cache import TREE_SIDE, item_icon
from resources_ui.browser import ResourceBrowser
from resources_ui.tree_model import ResourceTreeModel
from tests.servers import icon_server
from tests.servers.icon_server import GOOD_COLOUR, build_icon_server, data_uri, png
from tests.window_kit import inprocess_bridge, run_in_qt, stdio_bridge

GOOD = QColor(*GOOD_COLOUR)
SECRET_COLOUR = (250, 10, 200)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A picture of the user's that the server's `file:` and SVG icons point at: it must never show."""
    path = tmp_path / "secret.png"
    path.write_bytes(png(32, 32, SECRET_COLOUR))
    return path


@pytest.fixture
def beacon() -> Iterator[socket.socket]:
    """A listener the `http:` icons point at: a fetch would be a connection waiting in its backlog."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    yield listener
    listener.close()


def fetched(listener: socket.socket) -> bool:
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


def centre(icon: QIcon) -> QColor:
    image = icon.pixmap(32, 32).toImage()
    return image.pixelColor(image.width() // 2, image.height() // 2)


def same(icon: QIcon, other: QIcon) -> bool:
    return icon.pixmap(20, 20).toImage() == other.pixmap(20, 20).toImage()


def row(model: ResourceTreeModel, uri: str) -> QModelIndex:
    server = model.index(0, 0)
    found = [model.index(r, 0, server) for r in range(model.rowCount(server))]
    return next(index for index in found if (entry := model.entry(index)) is not None and entry.uri == uri)


def painted_colours(browser: ResourceBrowser, index: QModelIndex) -> set[tuple[int, int, int]]:
    """The colours the tree painted in `index`'s row: what the user sees, not what the model says."""
    view = browser.view
    image: QImage = view.viewport().grab().toImage()
    rect: QRect = view.visualRect(browser.proxy.mapFromSource(index))
    return {
        (c.red(), c.green(), c.blue())
        for x in range(max(rect.left(), 0), min(rect.right(), image.width() - 1))
        for y in range(max(rect.top(), 0), min(rect.bottom(), image.height() - 1))
        if (c := image.pixelColor(x, y))
    }


def check_tree(browser: ResourceBrowser) -> None:
    model = browser.model
    look = model.row_look(model.index(0, 0))
    assert look is not None and look.state is ServerState.READY
    assert centre(look.icon) == GOOD  # the server's own icon, from its serverInfo
    good = row(model, "icons://good")
    assert centre(model.data(good, 1)) == GOOD  # DecorationRole
    good_look = model.row_look(good)
    assert good_look is not None and centre(good_look.icon) == GOOD
    template = model.row_look(row(model, "icons://note/{topic}"))
    assert template is not None and centre(template.icon) == GOOD
    bomb = model.row_look(row(model, "icons://bomb"))  # a bomb, a liar and broken base64: the glyph
    assert bomb is not None and same(bomb.icon, kind_icon(ContentKind.TEXT))
    drawn = model.row_look(row(model, "icons://drawn"))  # the scripted SVG refused, the clean one drawn
    assert drawn is not None and centre(drawn.icon).alpha() == 255 and centre(drawn.icon) != GOOD
    browser.resize(420, 600)
    browser.show()
    browser.view.expandAll()
    colours = painted_colours(browser, good)
    assert GOOD_COLOUR in colours and SECRET_COLOUR not in colours
    assert SECRET_COLOUR not in painted_colours(browser, row(model, "icons://drawn"))


def test_the_tree_draws_the_good_icons_and_refuses_the_hostile_ones(
    qapp: QApplication, secret: Path, beacon: socket.socket
) -> None:
    address = "http://{}:{}".format(*beacon.getsockname())

    async def scenario() -> None:
        bridge = await inprocess_bridge({"icons": build_icon_server(str(secret), address)})
        browser = ResourceBrowser(bridge)
        try:
            check_tree(browser)
            assert not fetched(beacon)
        finally:
            browser.hide()
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


@pytest.mark.stdio
def test_over_stdio_too(qapp: QApplication, secret: Path, beacon: socket.socket) -> None:
    address = "http://{}:{}".format(*beacon.getsockname())
    script = Path(icon_server.__file__)
    config = ServerConfig(
        name="icons",
        transport=TransportKind.STDIO,
        command=sys.executable,
        args=(str(script), "--secret", str(secret), "--beacon", address),
    )

    async def scenario() -> None:
        bridge = await stdio_bridge([config])
        browser = ResourceBrowser(bridge)
        try:
            assert bridge.host.connection("icons").status.state is ServerState.READY
            check_tree(browser)
            assert not fetched(beacon)
        finally:
            browser.hide()
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_without_an_icon_of_its_own_a_server_keeps_its_state_glyph(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"icons": build_icon_server(own_icon=False)})
        model = ResourceTreeModel(bridge)
        try:
            look = model.row_look(model.index(0, 0))
            assert look is not None and centre(look.icon) != GOOD and not look.icon.isNull()
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_one_image_is_decoded_once_however_many_items_list_it(qapp: QApplication) -> None:
    wrapped = Icon(src=icon_server.GOOD.src[:40] + "\n" + icon_server.GOOD.src[40:])  # other text, same bytes
    first = item_icon([icon_server.GOOD], TREE_SIDE)
    assert first is not None and centre(first) == GOOD
    again = item_icon([wrapped], TREE_SIDE)
    assert again is first


def test_an_image_whose_header_passes_but_whose_pixels_are_broken_falls_back(qapp: QApplication) -> None:
    cut = png(24, 24, (1, 2, 3))[:60]  # the header of a 24×24 PNG, its pixels cut short
    assert item_icon([Icon(src=data_uri(cut, "image/png"))], TREE_SIDE) is None


@pytest.mark.parametrize("fmt", ["png", "jpeg", "webp"])
def test_each_raster_type_is_decoded_as_the_type_it_is(qapp: QApplication, fmt: str) -> None:
    image = QImage(24, 24, QImage.Format.Format_RGB32)
    image.fill(GOOD)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, fmt.upper(), 90)  # lossy: Qt reads back no lossless WebP this small
    data = bytes(buffer.data().data())
    icon = item_icon([Icon(src=data_uri(data, f"image/{fmt}"), mime_type=f"image/{fmt}")], TREE_SIDE)
    assert icon is not None
    drawn = centre(icon)
    assert max(abs(drawn.red() - GOOD.red()), abs(drawn.green() - GOOD.green()), abs(drawn.blue() - GOOD.blue())) < 8
    other = "image/png" if fmt != "png" else "image/webp"  # the same bytes said to be another type: refused
    assert item_icon([Icon(src=data_uri(data, other))], TREE_SIDE) is None

"""Icons from registries are untrusted bytes: PNG/JPEG decoded, SVG drawn only when it is inert."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from desktop_app.ui.gallery.gallery_controller import icon_url_allowed
from desktop_app.ui.gallery.icons import icon_image, is_inert_svg
from tests.servers.registry_documents import png

SAFE_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="g"/></defs>'
    b'<rect id="r" width="10" height="10" fill="url(#g)"/><use href="#r"/></svg>'
)


def jpeg() -> bytes:
    image = QImage.fromData(png(8, 8))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "JPEG")
    return bytes(data.data())


def test_png_jpeg_and_inert_svg_render(qapp: QApplication) -> None:
    for data in (png(64, 32), jpeg(), SAFE_SVG):
        image = icon_image(data, 48)
        assert image is not None and max(image.width(), image.height()) == 48


@pytest.mark.parametrize(
    "svg",
    [
        b'<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd"/></svg>',
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="https://t.example/p.png"/></svg>',
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
        b'<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div/></foreignObject></svg>',
        b'<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(https://t.example/x.css);</style></svg>',
        b'<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://t.example/x#p)"/></svg>',
    ],
)
def test_svgs_that_reach_out_or_run_code_are_not_drawn(qapp: QApplication, svg: bytes) -> None:
    assert not is_inert_svg(svg)
    assert icon_image(svg, 48) is None


def test_other_bytes_are_not_icons(qapp: QApplication) -> None:
    assert icon_image(b"", 48) is None
    assert icon_image(b"GIF89a....", 48) is None
    assert icon_image(b"\x89PNG\r\n\x1a\nbroken", 48) is None
    assert icon_image(png() + b"x" * (600 * 1024), 48) is None  # too large to be an icon


def test_icon_urls() -> None:
    assert icon_url_allowed("https://example.com/i.png")
    assert icon_url_allowed("http://127.0.0.1:8000/i.png") and icon_url_allowed("http://localhost/i.png")
    assert not icon_url_allowed("http://example.com/i.png")
    assert not icon_url_allowed("file:///etc/passwd") and not icon_url_allowed("data:image/png;base64,xx")

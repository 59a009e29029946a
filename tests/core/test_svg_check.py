"""An SVG is drawn only when everything it shows is inside it; each way of pointing outside is caught."""

from __future__ import annotations

import gzip

import pytest

from desktop_app.core.svg_check import MAX_UNPACKED_BYTES, OUTSIDE, svg_problem

HEAD = b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="9" height="9">'


def svg(body: bytes) -> bytes:
    return HEAD + body + b"</svg>"


@pytest.mark.parametrize(
    "body",
    [
        b'<image xlink:href="/home/user/photo.png"/>',
        b'<image href="file:///home/user/photo.png"/>',
        b"<image xlink:href='//attacker.example/share/x.png'/>",  # a Windows UNC path
        b'<image xl:href = " http://127.0.0.1:9/beacon.png"/>',  # another prefix, spaces
        b'<image xlink:href="&#x2F;home/user/photo.png"/>',  # an entity-encoded path
        b'<use xlink:href="other.svg#shape"/>',
        b"<rect style=\"fill: url( 'http://127.0.0.1:9/x' )\"/>",
        b"<style>@import 'http://127.0.0.1:9/x.css';</style>",
    ],
)
def test_a_reference_outside_the_document_is_refused(body: bytes) -> None:
    assert svg_problem(svg(body)) == OUTSIDE


def test_fragments_and_inline_data_are_inside() -> None:
    body = (
        b'<defs><linearGradient id="g"/></defs><rect id="r" fill="url(#g)"/><use xlink:href="#r"/>'
        b'<image href="data:image/png;base64,iVBORw0KGgo="/><a href="">x</a>'
    )
    assert svg_problem(svg(body)) is None


def test_entities_and_unreadable_encodings_are_refused() -> None:
    entity = b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>' + svg(b"&x;")
    assert "entities" in (svg_problem(entity) or "")
    hidden = svg(b'<image href="/home/user/photo.png"/>')
    assert "UTF-8" in (svg_problem(hidden.decode().encode("utf-16")) or "")
    utf7 = b'<?xml version="1.0" encoding="UTF-7"?>' + svg(b"+ADw-image href+AD0AIg-/x.png+ACI-/+AD4-")
    assert "UTF-8" in (svg_problem(utf7) or "")


def test_compressed_svg_is_checked_unpacked_and_bounded() -> None:
    assert svg_problem(gzip.compress(svg(b'<image href="/x.png"/>')), compressed=True) == OUTSIDE
    assert svg_problem(gzip.compress(svg(b"<rect/>")), compressed=True) is None
    bomb = gzip.compress(svg(b"<!--" + b" " * (MAX_UNPACKED_BYTES + 1) + b"-->"))
    assert "unpacks to more than" in (svg_problem(bomb, compressed=True) or "")

"""A server's `icons` are images from an attacker: only capped, inline, honestly typed ones are kept.

The attack is `tests/servers/icon_server.py`, run in-process through the host (and over real stdio in
`tests/resources_ui/test_server_icons_tree.py`): every item's hostile icons are refused before any
decoding, and its one good PNG is what the window gets.
"""

from __future__ import annotations

import base64
import logging

import pytest
from mcp_types import Icon

from desktop_app.core.server_icons import (
    MAX_ICONS_PER_ITEM,
    ServerIcon,
    _checked,
    best_icon,
    icon_problem,
    server_icons,
    tool_icons,
)
from desktop_app.core.server_status import ServerState
from tests.hosting import serving
from tests.servers.icon_server import (
    BOMB,
    BROKEN,
    GOOD,
    GOOD_PNG,
    HTTP,
    HTTPS,
    HUGE,
    LIAR,
    build_icon_server,
    data_uri,
    file_icon,
    png,
    svg_icon,
)

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16"/></svg>'


def test_each_hostile_icon_is_refused_with_its_reason() -> None:
    assert "https icons are not fetched" in (icon_problem(HTTPS.src) or "")
    assert "only inline data:" in (icon_problem(HTTP.src) or "")
    assert "only inline data:" in (icon_problem(file_icon("/etc/passwd").src) or "")
    assert "only inline data:" in (icon_problem("javascript:alert(1)") or "")
    assert "over 64 KiB" in (icon_problem(HUGE.src) or "")
    assert "30,000×30,000" in (icon_problem(BOMB.src) or "")
    assert "claims to be 'image/jpeg' but is image/png" in (icon_problem(LIAR.src) or "")
    assert "claims to be 'image/jpeg'" in (icon_problem(GOOD.src, "image/jpeg") or "")
    assert "outside itself" in (icon_problem(svg_icon("/etc/passwd").src) or "")
    assert "not valid base64" in (icon_problem(BROKEN.src) or "")
    assert "not a PNG" in (icon_problem(data_uri(b"MZ\x90\x00 an executable", "image/png")) or "")
    assert "not a PNG" in (icon_problem("data:image/gif;base64," + base64.b64encode(b"GIF89a\x01\x00").decode()) or "")


def test_an_svg_is_kept_only_when_self_contained() -> None:
    assert icon_problem(data_uri(SVG, "image/svg+xml")) is None
    assert icon_problem("data:image/svg+xml," + SVG.decode().replace("<", "%3C")) is None
    scripted = SVG.replace(b"<rect", b"<script>alert(1)</script><rect")
    assert "script" in (icon_problem(data_uri(scripted, "image/svg+xml")) or "")
    nested = SVG.replace(b"<rect", b'<image href="' + data_uri(GOOD_PNG, "image/png").encode() + b'"/><rect')
    assert "embeds other images" in (icon_problem(data_uri(nested, "image/svg+xml")) or "")
    entities = b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]>' + SVG
    assert icon_problem(data_uri(entities, "image/svg+xml")) is not None


def test_a_ten_megabyte_icon_is_refused_by_its_length_and_not_remembered() -> None:
    assert len(HUGE.src) > 10_000_000
    remembered = _checked.cache_info().currsize
    assert server_icons([HUGE]) == ()
    assert _checked.cache_info().currsize == remembered  # its 10 MB are not kept as a key
    percent = "data:image/png," + "%89PNG" + "%00" * 200_000  # text, not base64: capped by its length too
    assert "over 64 KiB" in (icon_problem(percent) or "")


def test_the_good_icon_is_kept_as_its_bytes_type_and_size() -> None:
    (icon,) = server_icons([HTTP, BOMB, LIAR, GOOD])
    assert icon.data == GOOD_PNG and icon.mime_type == "image/png" and (icon.width, icon.height) == (32, 32)
    assert server_icons([GOOD])[0] is icon  # the same icon elsewhere is checked once


def test_only_the_first_few_icons_of_an_item_are_looked_at() -> None:
    assert server_icons([HTTP] * 999 + [GOOD]) == ()
    assert len(server_icons([GOOD] * 1000)) == MAX_ICONS_PER_ITEM


def test_a_refused_icon_says_why_in_one_debug_line(caplog: pytest.LogCaptureFixture) -> None:
    odd = Icon(src="data:image/png;base64,QUJD" + "=" * 7)  # unique, so not remembered from another test
    with caplog.at_level(logging.DEBUG, logger="desktop_app.core.server_icons"):
        assert server_icons([odd]) == ()
    lines = [r for r in caplog.records if r.name == "desktop_app.core.server_icons"]
    assert len(lines) == 1 and lines[0].levelno == logging.DEBUG and "Server icon not drawn" in lines[0].getMessage()


def _icon(side: int, theme: str | None = None, mime: str = "image/png") -> ServerIcon:
    return ServerIcon(b"", mime, 0 if mime.endswith("xml") else side, side, theme, f"{side}{theme}{mime}")  # type: ignore[arg-type]


def test_the_best_icon_matches_the_theme_then_the_place() -> None:
    icons = [_icon(16), _icon(48), _icon(256), _icon(64, "dark")]
    assert best_icon(icons, 32) == _icon(48)  # the smallest at least as big as the place
    assert best_icon(icons, 512) == _icon(256)  # else the largest
    assert best_icon(icons, 32, "dark") == _icon(64, "dark")  # the theme's own first
    assert best_icon([_icon(64, "dark"), _icon(16, "light")], 32, "light") == _icon(16, "light")
    assert best_icon([_icon(48), _icon(0, None, "image/svg+xml")], 24) == _icon(0, None, "image/svg+xml")
    assert best_icon([], 24) is None


@pytest.mark.anyio
async def test_the_hostile_server_lists_and_only_its_good_icons_are_kept() -> None:
    server = build_icon_server()
    async with serving({"icons": server}, settle=30) as host:
        assert host.connection("icons").status.state is ServerState.READY
        snapshot = host.catalog.servers["icons"]
        assert snapshot.server_info is not None
        assert [i.data for i in server_icons(snapshot.server_info.icons)] == [GOOD_PNG]
        assert [i.data for i in tool_icons(host.catalog, "icons", "painted")] == [GOOD_PNG]
        assert tool_icons(host.catalog, "icons", "flooded") == ()
        assert tool_icons(host.catalog, "icons", "plain") == ()
        assert tool_icons(host.catalog, "nobody", "painted") == ()
        resources = {r.uri: server_icons(r.icons) for r in snapshot.resources}
        assert [i.data for i in resources["icons://good"]] == [GOOD_PNG]
        assert resources["icons://bomb"] == ()
        assert [i.mime_type for i in resources["icons://drawn"]] == ["image/svg+xml"]
        assert [i.data for t in snapshot.templates for i in server_icons(t.icons)] == [GOOD_PNG]
        prompts = {p.name: server_icons(p.icons) for p in snapshot.prompts}
        assert [i.data for i in prompts["greet"]] == [GOOD_PNG] and prompts["quiet"] == ()


def test_a_png_bomb_made_here_is_refused_by_its_header() -> None:
    bomb = png(20_000, 20_000, (0, 0, 0), rows=1)
    assert len(bomb) < 1024
    assert icon_problem(data_uri(bomb, "image/png")) is not None

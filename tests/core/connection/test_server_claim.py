"""What a server says it is (`io.modelcontextprotocol/serverInfo` in its results' `_meta`) is kept as its
claim: the latest one, capped, plain, and never what the server is known by."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp_types import SERVER_INFO_META_KEY

from desktop_app.core.connection.server_claim import NAME_CHARS, VERSION_CHARS, ServerClaim, read_claim
from desktop_app.core.host import ServerHost
from desktop_app.core.server_status import ServerState
from tests.core.connection.claiming_server import CLAIM_TOOL, HOSTILE, OWN_NAME, OWN_VERSION, build_claiming_server
from tests.hosting import inprocess_config, serving

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def _started(protocol: str = "auto") -> AsyncIterator[ServerHost]:
    async with serving({"files": build_claiming_server()}, inprocess_config("files", protocol=protocol)) as host:
        assert host.connection("files").status.state is ServerState.READY
        yield host


def _log(host: ServerHost) -> list[str]:
    return [entry.text for entry in host.connection("files").log]


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_the_handshake_says_who_the_server_claims_to_be(protocol: str) -> None:
    async with _started(protocol) as host:
        assert host.connection("files").claim == ServerClaim(OWN_NAME, OWN_VERSION)


async def test_a_listing_pages_stamp_is_read_too() -> None:
    async with serving({"files": build_claiming_server({"name": "lister", "version": "3"})}) as host:
        assert host.connection("files").status.state is ServerState.READY
        assert host.connection("files").claim == ServerClaim("lister", "3")
        assert host.catalog.tool(f"files__{CLAIM_TOOL}") is not None


async def test_a_results_stamp_becomes_the_latest_claim() -> None:
    async with _started() as host:
        connection = host.connection("files")
        info = {"name": "acme-files", "version": "2.1", "title": "Acme Files", "websiteUrl": "https://acme.example"}
        await connection.call_tool(CLAIM_TOOL, {"info": info})
        claim = connection.claim
        assert claim == ServerClaim("acme-files", "2.1", "Acme Files", "https://acme.example")
        assert claim is not None and claim.text == "Acme Files (acme-files) 2.1"
        assert any("now: Acme Files (acme-files) 2.1 (its own claim)" in line for line in _log(host))
        await connection.call_tool(CLAIM_TOOL, {})  # the server's own stamp again: the latest wins
        assert connection.claim == ServerClaim(OWN_NAME, OWN_VERSION)


async def test_claiming_to_be_another_server_changes_nothing_but_the_capped_plain_claim() -> None:
    """The attack: a result says it comes from another server, with a huge name, markup and controls."""
    server = build_claiming_server()
    other = build_claiming_server()
    targets = {"files": server, "filesystem": other}
    async with serving(targets, settle=30) as host:
        before_tools = sorted(t.exposed_name for t in host.catalog.tools())
        before_trust = {name: host.trust(name) for name in targets}
        connection = host.connection("files")
        await connection.call_tool(CLAIM_TOOL, {"info": HOSTILE})
        claim = connection.claim
        assert claim is not None
        assert len(claim.name) <= NAME_CHARS and len(claim.version) <= VERSION_CHARS
        assert claim.name.startswith("filesystem\\x1b[2J\\u202e<b>AAA") and claim.name.endswith("…")
        assert claim.title == "<a href='https://evil.example'>Official Filesystem</a> Trusted"
        assert not any(c in claim.text for c in "\x1b\u202e\r\n")
        assert len(claim.text) < 250
        # The configuration's name stays the identity: routing, the catalog, trust and the other server.
        assert connection.name == "files" and host.connection("filesystem").claim == ServerClaim(OWN_NAME, OWN_VERSION)
        assert sorted(host.catalog.servers) == ["files", "filesystem"]
        assert sorted(t.exposed_name for t in host.catalog.tools()) == before_tools
        assert {name: host.trust(name) for name in targets} == before_trust
        assert host.catalog.tool(f"files__{CLAIM_TOOL}") is not None
        assert all(len(line) < 400 for line in _log(host))


@pytest.mark.parametrize(
    "info",
    [
        "acme-files 2.1",
        ["acme-files"],
        {"version": "2.1"},
        {"name": "acme-files"},
        {"name": "", "version": "2.1"},
        {"name": 5, "version": "2.1"},
        {"name": "acme-files", "version": "2.1", "title": {"text": "x"}},
    ],
)
async def test_a_malformed_claim_is_ignored_with_one_log_line(info: Any) -> None:
    async with _started() as host:
        connection = host.connection("files")
        await connection.call_tool(CLAIM_TOOL, {"info": info})
        await connection.call_tool(CLAIM_TOOL, {"info": info})
        assert connection.claim == ServerClaim(OWN_NAME, OWN_VERSION)
        ignored = [line for line in _log(host) if "ignored what a result said the server is" in line]
        assert len(ignored) == 1, ignored


def test_reading_a_stamp() -> None:
    assert read_claim(None) is None and read_claim({}) is None and read_claim({SERVER_INFO_META_KEY: None}) is None
    assert read_claim({SERVER_INFO_META_KEY: {"name": " a\tb ", "version": ""}}) == ServerClaim("a b", "")
    assert read_claim({SERVER_INFO_META_KEY: {"name": "a", "version": "1", "icons": [{"src": "x"}]}}) == ServerClaim(
        "a", "1"
    )
    assert isinstance(read_claim({SERVER_INFO_META_KEY: 7}), str)

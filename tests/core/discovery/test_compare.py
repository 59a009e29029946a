"""A card beside what its server says once connected: the real domain's server, and each field alone."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_types import Implementation

from desktop_app.core.discovery.card import ServerCard
from desktop_app.core.discovery.compare import compare_card
from desktop_app.core.discovery.discover import discover
from desktop_app.core.publisher_document import Transport
from tests.servers.card_domain import running_domain

pytestmark = pytest.mark.anyio
CARD = ServerCard(schema="", name="io.example/weather", version="2.0.0", description="Forecasts.", title="Weather")


async def test_the_domain_s_server_disagrees_with_its_card() -> None:
    with running_domain() as domain:
        [server] = (await discover(domain.host)).servers
        assert server.card is not None
        [remote] = server.card.remotes
        async with Client(domain.url + "/mcp?region=eu") as client:
            lines = compare_card(server.card, client.server_info, client.protocol_version, remote)
    assert lines == (
        "name: the card says io.example/weather, the server says weather-server",
        "version: the card says 2.0.0, the server says 1.0.0",
        "title: the card says Weather, the server says Weather (beta)",
    )


def test_agreeing_fields_say_nothing() -> None:
    same = Implementation(name="weather", version="2.0.0", title="weather ", description="Forecasts.")
    assert compare_card(CARD, same, "2025-11-25", Transport(type="sse", url="x")) == ()
    full_name = Implementation(name="io.example/weather", version="2.0.0")
    assert compare_card(CARD, full_name, None) == ()


def test_a_protocol_the_card_does_not_list_and_a_silent_server() -> None:
    remote = Transport(type="streamable-http", url="x", supported_protocol_versions=("2026-07-28",))
    info = Implementation(name="weather", version="2.0.0")
    assert compare_card(CARD, info, "2025-11-25", remote) == (
        "protocol: the card lists 2026-07-28, the server speaks 2025-11-25",
    )
    assert compare_card(CARD, None, None) == ("the server did not say who it is, so its card could not be checked",)

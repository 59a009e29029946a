"""Names are resolved before they are believed: a public domain's documents may not point MCP Desk at this
computer or the local network through a name that resolves there, when checked or a moment later (DNS
rebinding). DNS is never used here: each test's resolver is a table, and the hostile domain is served on
127.0.0.1 under the name `evil.example`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import httpx2
import pytest

from desktop_app.core.discovery.address import DiscoveryError, DomainAddress, check_resolved, check_url
from desktop_app.core.discovery.discover import discover
from desktop_app.core.network_guard import GuardedTransport, is_internal
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import TransportHooks, from_public_domain, open_transport
from tests.hosting import serving_configs
from tests.name_table import SOME_PUBLIC_ADDRESS, NameTable
from tests.servers.card_domain import CardDomain, running_domain

pytestmark = pytest.mark.anyio
PUBLIC = DomainAddress("https://example.com", "example.com")


@pytest.fixture
def domain() -> Iterator[CardDomain]:
    with running_domain() as served:
        yield served


def evil(domain: CardDomain, path: str = "") -> str:
    """The hostile domain's address under its public-looking name (its port on 127.0.0.1)."""
    return f"http://evil.example:{domain.url.rsplit(':', 1)[1]}{path}"


async def test_a_remote_whose_name_resolves_into_this_computer_is_refused(domain: CardDomain) -> None:
    hosts = NameTable(evil_example="127.0.0.1", nas_example="192.168.1.20", link_example="169.254.169.254")
    url = "https://evil.example/mcp"
    assert check_url(url, PUBLIC).problem is None  # as written, the name looks public
    assert await check_resolved(url, PUBLIC, "the server's address", hosts) == (
        "the server's address is refused: example.com may not point at this computer or your network"
        " (evil.example resolves to 127.0.0.1, which is on this computer or your local network; not connected)"
    )
    for name, address in (("nas.example", "192.168.1.20"), ("link.example", "169.254.169.254")):
        problem = await check_resolved(f"https://{name}/mcp", PUBLIC, "it", hosts)
        assert problem is not None and f"{name} resolves to {address}" in problem
    local = DomainAddress(domain.url, domain.host)
    assert await check_resolved(url, local, "it", hosts) is None  # a domain on this computer may name it


async def test_a_public_domain_whose_name_resolves_here_is_not_read(domain: CardDomain) -> None:
    hosts = NameTable(evil_example="127.0.0.1")
    hostile = DomainAddress(evil(domain), evil(domain).split("//")[1])
    assert not hostile.local
    with pytest.raises(DiscoveryError, match=r"evil.example resolves to 127.0.0.1, which is on this computer"):
        await discover(hostile, resolve=hosts)
    assert domain.requests == [] and hosts.asked == ["evil.example"]  # nothing reached the server on 127.0.0.1


async def test_a_name_that_rebinds_between_the_check_and_the_connection_is_refused(domain: CardDomain) -> None:
    hosts = NameTable(evil_example=[SOME_PUBLIC_ADDRESS, "127.0.0.1"])
    url = evil(domain, "/mcp")
    assert await check_resolved(url.replace("http:", "https:"), PUBLIC, "it", hosts) is None  # public at install
    async with httpx2.AsyncClient(transport=GuardedTransport(hosts)) as client:
        with pytest.raises(httpx2.ConnectError, match=r"evil\.example resolves to 127\.0\.0\.1"):
            await client.get(url)  # resolved again when connecting: now it points here
    assert domain.requests == [] and domain.mcp_headers == []


async def test_an_entry_from_a_public_domains_card_is_checked_on_every_connection(domain: CardDomain) -> None:
    # rebinding.example is public when first looked up on connecting, and 127.0.0.1 from then on.
    hosts = NameTable(evil_example="127.0.0.1", rebinding_example=[SOME_PUBLIC_ADDRESS, "127.0.0.1"])
    origin = {"domain": "evil.example", "name": "io.evil/x", "version": "1", "package": "remote", "card": ""}
    hostile = ServerConfig(
        name="evil", transport=TransportKind.HTTP, url=evil(domain, "/mcp"), origin=origin, timeout=5
    )
    rebinding = replace(hostile, name="rebinding", url=evil(domain, "/mcp").replace("evil.", "rebinding."))
    mine = ServerConfig(  # the same server, from a domain on this computer
        name="mine",
        transport=TransportKind.HTTP,
        url=domain.url + "/mcp",
        origin={**origin, "domain": domain.host},
        timeout=5,
    )
    assert from_public_domain(hostile.origin) and not from_public_domain(mine.origin)
    assert not from_public_domain({"package": "remote"})  # an entry the user added: not a domain's word

    def target(config: ServerConfig, hooks: TransportHooks) -> object:
        return open_transport(config, hooks, resolve=hosts)

    async with serving_configs(hostile, rebinding, mine, settle=30, target_factory=target) as host:
        assert host.connection("mine").status.state is ServerState.READY
        status = host.connection("evil").status
        assert status.state is not ServerState.READY
        assert "evil.example resolves to 127.0.0.1" in f"{status.reason} {status.summary}", status
        assert host.connection("rebinding").status.state is not ServerState.READY
    assert "evil.example" in hosts.asked and hosts.asked.count("rebinding.example") >= 2
    assert all(h.get("host", "").startswith("127.0.0.1") for h in domain.mcp_headers)  # only "mine" got through


@pytest.mark.parametrize(
    ("address", "internal"),
    [
        ("127.0.0.1", True),
        ("10.1.2.3", True),
        ("172.16.0.1", True),
        ("192.168.1.1", True),
        ("169.254.169.254", True),
        ("100.64.0.1", True),
        ("0.0.0.0", True),
        ("::1", True),
        ("fe80::1%eth0", True),
        ("fd00::1", True),
        ("::ffff:127.0.0.1", True),
        ("2002:7f00:1::", True),  # 6to4 of 127.0.0.1
        ("64:ff9b::c0a8:0101", True),  # NAT64 of 192.168.1.1
        ("224.0.0.1", True),
        (SOME_PUBLIC_ADDRESS, False),
        ("2606:4700::1111", False),
    ],
)
def test_what_counts_as_inside(address: str, internal: bool) -> None:
    assert is_internal(address) is internal


async def test_an_address_written_as_a_number_is_checked_without_a_lookup() -> None:
    hosts = NameTable()
    problem = await check_resolved("https://10.0.0.1/mcp", PUBLIC, "it", hosts)
    assert problem is not None and hosts.asked == []

"""A registry on the internet may not point MCP Desk at this computer or the local network through a remote's
host name; a registry that is itself inside (an organisation's sub-registry) may. The registry is served on
127.0.0.1 and read under the name `localhost`; the resolver is a table (never real DNS) that says where each
name is, so the same registry can be on the internet, on the local network or on this computer."""

from __future__ import annotations

import pytest

from desktop_app.core.registry.choices import choices, pick
from desktop_app.core.registry.client import RegistryClient
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.plan import check_remote_address, plan_remote
from tests.name_table import SOME_PUBLIC_ADDRESS, NameTable
from tests.servers.registry_documents import simple
from tests.servers.registry_fixture import RegistryFixture, response

pytestmark = pytest.mark.anyio
NAME = "io.github.evil/inside"


async def planned_url(registry: RegistryFixture, remote_url: str) -> tuple[str, str]:
    """The registry's address under its name, and the URL an install of its remote would save."""
    remote = {"type": "streamable-http", "url": remote_url}
    registry.add(response(simple(NAME, "Points inside", remotes=[remote])))
    client = RegistryClient(registry.url.replace("127.0.0.1", "localhost"))
    entry = await client.get(NAME)
    choice = pick(choices(entry), "remote")
    assert choice.remote is not None
    plan = plan_remote(entry, choice.remote, {}, entry_name="inside", registry_url=client.base_url)
    assert plan.config.url == remote_url
    return client.base_url, remote_url


async def test_a_public_registrys_remote_that_resolves_inside_is_refused(registry: RegistryFixture) -> None:
    listed_by, url = await planned_url(registry, "https://evil.example/mcp")
    hosts = NameTable(localhost=SOME_PUBLIC_ADDRESS, evil_example="127.0.0.1", nas_example="192.168.1.20")
    with pytest.raises(PlanError) as refused:
        await check_remote_address(url, listed_by, hosts)
    assert str(refused.value) == (
        f"the server's address is refused: the registry {listed_by.split('//')[1]} may not point at this computer"
        " or your network (evil.example resolves to 127.0.0.1, which is on this computer or your local network;"
        " not connected)"
    )
    for inside in ("https://nas.example/mcp", "http://127.0.0.1:9/mcp", "https://[::1]/mcp", "https://10.1.2.3/"):
        with pytest.raises(PlanError, match="may not point at this computer or your network"):
            await check_remote_address(inside, listed_by, hosts)
    await check_remote_address("https://unknown.example/mcp", listed_by, NameTable(localhost=SOME_PUBLIC_ADDRESS))


async def test_a_registry_inside_may_list_servers_inside(registry: RegistryFixture) -> None:
    listed_by, url = await planned_url(registry, "https://evil.example/mcp")
    for where in ("127.0.0.1", "10.0.0.5", "192.168.1.2"):
        hosts = NameTable(localhost=where, evil_example="192.168.1.20")
        await check_remote_address(url, listed_by, hosts)  # an organisation's own registry and server
        assert hosts.asked == ["localhost"]  # its remotes are not even looked up
    written = NameTable()
    await check_remote_address(url, registry.url, written)  # 127.0.0.1 as written: nothing to look up
    assert written.asked == []


async def test_a_public_registrys_public_remote_is_kept(registry: RegistryFixture) -> None:
    listed_by, url = await planned_url(registry, "https://weather.example/mcp")
    hosts = NameTable(localhost=SOME_PUBLIC_ADDRESS, weather_example=SOME_PUBLIC_ADDRESS)
    await check_remote_address(url, listed_by, hosts)
    assert hosts.asked == ["localhost", "weather.example"]

"""Update badges' source of truth: installed origins compared with the registry's latest versions."""

from __future__ import annotations

import pytest

from desktop_app.core.registry.client import RegistryClient
from desktop_app.core.registry.fields import package_fields
from desktop_app.core.registry.model import parse_entry
from desktop_app.core.registry.updates import find_installed, find_updates, installed_from, previous_answers
from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.servers.registry_documents import hello
from tests.servers.registry_fixture import RegistryFixture, response

pytestmark = pytest.mark.anyio


def installed(name: str, registry: str, server: str, version: str) -> ServerConfig:
    origin = {"registry": registry, "name": server, "version": version, "package": "npm"}
    return ServerConfig(name=name, transport=TransportKind.STDIO, command="npx", origin=origin)


async def test_newer_versions_are_found(registry: RegistryFixture) -> None:
    servers = [
        installed("hello", registry.url, "io.github.mcp-desk-tests/hello", "0.9.0"),
        installed("weather", registry.url, "io.github.acme/weather", "0.5.0"),  # current
        installed("elsewhere", "http://127.0.0.1:9", "io.github.x/y", "1.0.0"),  # unreachable: skipped
        ServerConfig(name="hand-made", transport=TransportKind.STDIO, command="x"),
    ]
    updates = await find_updates(servers, lambda url: RegistryClient(url, timeout=2))
    assert list(updates) == ["hello"] and updates["hello"].server.version == "1.0.0"
    assert installed_from(servers[3]) is None
    assert find_installed(servers, registry.url, "io.github.acme/weather") is servers[1]
    assert find_installed(servers, "https://other", "io.github.acme/weather") is None


def test_previous_answers_keep_plain_values_only() -> None:
    package = parse_entry(response(hello(RegistryFixture(url="http://x")))).server.packages[0]
    config = ServerConfig(
        name="hello",
        transport=TransportKind.STDIO,
        command="npx",
        env={"HELLO_GREETING": "Salut $${USER}", "HELLO_TOKEN": "${secret:HELLO_TOKEN}", "OTHER": "x"},
    )
    assert previous_answers(config, package_fields(package)) == {"HELLO_GREETING": ("Salut ${USER}",)}

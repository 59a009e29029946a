"""Tool and resource `_meta.ui`: the view a tool names, who may call it, what a resource declares."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import Tool

from desktop_app.core.catalog import Catalog, ServerCatalog
from desktop_app.core.connection import ServerConnection
from desktop_app.core.events import EventBus
from desktop_app.core.extensions.apps_meta import (
    EXTENSION_ID,
    callable_by_app,
    parse_resource_meta,
    ui_resource_uri,
    visibility,
    visible_to_model,
)
from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.hosting import eventually

pytestmark = pytest.mark.anyio


def tool(name: str, meta: dict[str, Any] | None = None) -> Tool:
    return Tool(name=name, input_schema={"type": "object"}, meta=meta)


def test_resource_uri_nested_wins_and_flat_key_is_still_read() -> None:
    assert ui_resource_uri(tool("a", {"ui": {"resourceUri": "ui://s/a"}})) == "ui://s/a"
    assert ui_resource_uri(tool("b", {"ui/resourceUri": "ui://s/b"})) == "ui://s/b"
    assert ui_resource_uri(tool("c", {"ui": {"resourceUri": "ui://s/new"}, "ui/resourceUri": "ui://s/old"})) == (
        "ui://s/new"
    )
    assert ui_resource_uri(tool("d", {"ui": {"resourceUri": "https://not-ui"}})) is None
    assert ui_resource_uri(tool("e")) is None


def test_visibility_defaults_and_malformed_values() -> None:
    assert visibility(tool("a")) == ("model", "app")
    assert visibility(tool("b", {"ui": {"visibility": ["app"]}})) == ("app",)
    assert visibility(tool("c", {"ui": {"visibility": "app"}})) == ("model", "app")
    app_only, model_only = tool("d", {"ui": {"visibility": ["app"]}}), tool("e", {"ui": {"visibility": ["model"]}})
    assert not visible_to_model(app_only) and callable_by_app(app_only)
    assert visible_to_model(model_only) and not callable_by_app(model_only)


def test_app_only_tools_are_hidden_from_the_model_but_kept_for_views() -> None:
    snapshot = ServerCatalog(
        "s", tools=(tool("shown"), tool("refresh", {"ui": {"visibility": ["app"]}}), tool("both", {"ui": {}}))
    )
    catalog = Catalog({"s": snapshot})
    assert sorted(t.tool.name for t in catalog.tools()) == ["both", "shown"]
    assert catalog.tool("refresh") is None
    assert [t.name for t in catalog.servers["s"].tools] == ["shown", "refresh", "both"]


def test_resource_meta_is_parsed_and_what_is_malformed_reported() -> None:
    meta = parse_resource_meta(
        {
            "ui": {
                "csp": {"connectDomains": ["https://api.example", "evil; x"], "resourceDomains": "nope"},
                "permissions": {"camera": {}, "geolocation": True, "clipboardWrite": {}},
                "prefersBorder": False,
            }
        }
    )
    assert meta.csp.connect == ("https://api.example",)
    assert meta.csp.resource == ()
    assert meta.rejected == ("evil; x", "'nope'")
    assert meta.permissions == ("camera", "clipboardWrite")
    assert meta.prefers_border is False
    assert parse_resource_meta(None).csp.fetchable == ()


async def test_the_connection_advertises_the_apps_extension() -> None:
    seen: list[Any] = []
    server = MCPServer("probe")

    @server.tool()
    def settings(ctx: Context) -> str:
        extensions = ctx.client_capabilities.extensions if ctx.client_capabilities else None
        seen.append(extensions)
        return "ok"

    connection = ServerConnection(
        ServerConfig(name="s", transport=TransportKind.STDIO, command="unused"),
        EventBus(),
        target_factory=lambda _config, _hooks: server,
    )
    connection.start()
    try:
        await connection.wait_settled(10)
        await connection.call_tool("settings", {})
        await eventually(lambda: bool(seen))
    finally:
        await connection.stop()
    assert seen[0][EXTENSION_ID] == {"mimeTypes": ["text/html;profile=mcp-app"]}

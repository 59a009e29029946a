"""What every server offers: per-server immutable snapshots and one aggregated, indexed view."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

from mcp_types import Implementation, Prompt, Resource, ResourceTemplate, Tool

from desktop_app.core.apps.meta import visible_to_model
from desktop_app.core.tool_names import ToolNameMap, build_tool_names

SYNTHETIC_TOOL_NAMES: Final = frozenset({"read_resource", "invoke_prompt", "search_resources", "search_tools"})
"""Client-side tools; no server tool may be exposed to a model under one of these names."""


@dataclass(frozen=True)
class ServerCatalog:
    """One server's offer at one moment; replaced whole when the server says its lists changed."""

    server: str
    server_info: Implementation | None = None
    protocol_version: str | None = None
    instructions: str | None = None
    resources: tuple[Resource, ...] = ()
    templates: tuple[ResourceTemplate, ...] = ()
    prompts: tuple[Prompt, ...] = ()
    tools: tuple[Tool, ...] = ()


@dataclass(frozen=True)
class CatalogTool:
    """A server tool as a model sees it: its exposed name and where calls go."""

    exposed_name: str
    server: str
    tool: Tool


@dataclass(frozen=True)
class Catalog:
    """The aggregated view over all ready servers, with O(1) lookups by URI and tool name.

    `tools()` and `tool()` are the model's tools: app-only tools (MCP Apps) stay in the server's snapshot.
    """

    servers: Mapping[str, ServerCatalog] = field(default_factory=dict)
    _uri_owner: dict[str, str] = field(init=False, repr=False)
    _resources: dict[str, Resource] = field(init=False, repr=False)
    _tool_names: ToolNameMap = field(init=False, repr=False)
    _tools: dict[tuple[str, str], Tool] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        owner: dict[str, str] = {}
        resources: dict[str, Resource] = {}
        tools: dict[tuple[str, str], Tool] = {}
        for name in sorted(self.servers):
            snapshot = self.servers[name]
            for resource in snapshot.resources:
                # First server (by name) wins a URI two servers both claim: deterministic.
                if resource.uri not in owner:
                    owner[resource.uri] = name
                    resources[resource.uri] = resource
            for tool in snapshot.tools:
                # MCP Apps: a tool whose `_meta.ui.visibility` leaves out "model" is for its views only.
                if visible_to_model(tool):
                    tools[(name, tool.name)] = tool
        object.__setattr__(self, "_uri_owner", owner)
        object.__setattr__(self, "_resources", resources)
        object.__setattr__(self, "_tools", tools)
        object.__setattr__(self, "_tool_names", build_tool_names(tools, SYNTHETIC_TOOL_NAMES))

    def with_server(self, snapshot: ServerCatalog) -> Catalog:
        return Catalog({**self.servers, snapshot.server: snapshot})

    def without_server(self, server: str) -> Catalog:
        return Catalog({k: v for k, v in self.servers.items() if k != server})

    def owner_of(self, uri: str) -> str | None:
        return self._uri_owner.get(uri)

    def resource(self, uri: str) -> Resource | None:
        return self._resources.get(uri)

    def resources(self) -> Iterator[tuple[str, Resource]]:
        for name in sorted(self.servers):
            for resource in self.servers[name].resources:
                yield name, resource

    def templates(self) -> Iterator[tuple[str, ResourceTemplate]]:
        for name in sorted(self.servers):
            for template in self.servers[name].templates:
                yield name, template

    def prompts(self) -> Iterator[tuple[str, Prompt]]:
        for name in sorted(self.servers):
            for prompt in self.servers[name].prompts:
                yield name, prompt

    def tools(self) -> Iterator[CatalogTool]:
        for (server, tool_name), tool in self._tools.items():
            yield CatalogTool(self._tool_names.exposed(server, tool_name), server, tool)

    def tool(self, exposed_name: str) -> CatalogTool | None:
        """Find the server tool behind a model-facing name; synthetic names never resolve here."""
        target = self._tool_names.resolve(exposed_name)
        if target is None:
            return None
        return CatalogTool(exposed_name, target[0], self._tools[target])

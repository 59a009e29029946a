"""What every server offers: per-server immutable snapshots and one aggregated, indexed view."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

from mcp_types import Implementation, Prompt, Resource, ResourceTemplate, Tool

from desktop_app.core.extensions.apps_meta import visible_to_model
from desktop_app.core.extensions.skills import SkillEntry, SkillListing
from desktop_app.core.tool_names import ToolNameMap, build_tool_names
from desktop_app.core.tool_schemas import input_problem

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
    skills: SkillListing | None = None
    """Its skills, when it declares the Skills extension (None when it does not)."""


@dataclass(frozen=True)
class CatalogTool:
    """A server tool as a model sees it: its exposed name and where calls go."""

    exposed_name: str
    server: str
    tool: Tool


@dataclass(frozen=True)
class Catalog:
    """The aggregated view over all ready servers, with O(1) lookups by URI and tool name.

    `tools()` and `tool()` are the model's tools: app-only tools (MCP Apps) stay in the server's snapshot,
    and so do the quarantined ones, whose input schema no provider could take (`quarantined()` says why).
    The indexes are built on first use: while servers come and go (at start-up, or all at once
    when quitting) each change makes a new catalog that nobody may ever query.
    """

    servers: Mapping[str, ServerCatalog] = field(default_factory=dict)

    @functools.cached_property
    def _resources(self) -> dict[str, list[tuple[str, Resource]]]:
        """Each URI's listing servers (by name) and their resources."""
        resources: dict[str, list[tuple[str, Resource]]] = {}
        for name in sorted(self.servers):
            for resource in self.servers[name].resources:
                found = resources.setdefault(resource.uri, [])
                if not found or found[-1][0] != name:
                    found.append((name, resource))
        return resources

    @functools.cached_property
    def _quarantined(self) -> dict[tuple[str, str], str]:
        """The model-visible tools whose input schema cannot be offered, with why (`tool_schemas`)."""
        return {
            (name, tool.name): problem
            for name in sorted(self.servers)
            for tool in self.servers[name].tools
            if visible_to_model(tool) and (problem := input_problem(tool)) is not None
        }

    @functools.cached_property
    def _tools(self) -> dict[tuple[str, str], Tool]:
        # MCP Apps: a tool whose `_meta.ui.visibility` leaves out "model" is for its views only.
        # A quarantined tool would make every request of a turn fail: the model is not offered it.
        return {
            (name, tool.name): tool
            for name in sorted(self.servers)
            for tool in self.servers[name].tools
            if visible_to_model(tool) and (name, tool.name) not in self._quarantined
        }

    def quarantined(self) -> Mapping[tuple[str, str], str]:
        """(server, tool name) → why the model is not offered that tool: its input schema is unusable."""
        return self._quarantined

    @functools.cached_property
    def _tool_names(self) -> ToolNameMap:
        return build_tool_names(self._tools, SYNTHETIC_TOOL_NAMES)

    def with_server(self, snapshot: ServerCatalog) -> Catalog:
        return Catalog({**self.servers, snapshot.server: snapshot})

    def owner_of(self, uri: str) -> str | None:
        """The first server (by name) listing `uri`: a label for display. A read is routed by
        `core/skills/addresses.py`, which refuses a URI several servers list."""
        found = self._resources.get(uri)
        return None if not found else found[0][0]

    def listers(self, uri: str) -> tuple[str, ...]:
        """Every server listing `uri` as a resource, by name."""
        return tuple(server for server, _ in self._resources.get(uri, ()))

    def resource(self, uri: str, server: str | None = None) -> Resource | None:
        """The resource listed at `uri` (by `server`, when given; else by the first server listing it)."""
        found = [r for s, r in self._resources.get(uri, ()) if server is None or s == server]
        return found[0] if found else None

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

    def skills(self) -> Iterator[tuple[str, SkillEntry]]:
        for name in sorted(self.servers):
            listing = self.servers[name].skills
            if listing is not None:
                for entry in listing.entries:
                    yield name, entry

    @functools.cached_property
    def _skill_uris(self) -> dict[str, list[tuple[str, SkillEntry]]]:
        """Every skill file's URI (`SKILL.md` included): the skills that list it, with their servers."""
        found: dict[str, list[tuple[str, SkillEntry]]] = {}
        for server, entry in self.skills():
            for uri in dict.fromkeys((entry.uri, *(f.uri for f in entry.files or ()))):
                found.setdefault(uri, []).append((server, entry))
        return found

    def skills_with(self, uri: str) -> list[tuple[str, SkillEntry]]:
        """The skills (and their servers) whose `SKILL.md` or listed file is `uri`; a skill's own first."""
        found = self._skill_uris.get(uri, [])
        return sorted(found, key=lambda pair: pair[1].uri != uri)

    def tools(self) -> Iterator[CatalogTool]:
        for (server, tool_name), tool in self._tools.items():
            yield CatalogTool(self._tool_names.exposed(server, tool_name), server, tool)

    def tool(self, exposed_name: str) -> CatalogTool | None:
        """Find the server tool behind a model-facing name; synthetic names never resolve here."""
        target = self._tool_names.resolve(exposed_name)
        if target is None:
            return None
        return CatalogTool(exposed_name, target[0], self._tools[target])

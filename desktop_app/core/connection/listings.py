"""What a server offers, listed whole: every page followed, and only what changed listed again.

A server announces changed listings (a notification in the 2025 era, a `subscriptions/listen`
event in 2026); `Staleness` gathers them until the owner task re-lists, so a server announcing new
tools need not send its 10,000 resources again. Skills (a server declaring the Skills extension)
have no such notification: their listing is kept while its `ttlMs` lasts, and listed again with
the rest once it has run out. A tool's output schema MCP Desk cannot use is ignored, so its calls do
not fail on it (`extensions/output_schemas.py`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final, Literal

from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, METHOD_NOT_FOUND

from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.extensions.output_schemas import ignore_output_schemas
from desktop_app.core.extensions.skills import SkillListing, declared
from desktop_app.core.server_errors import describe_error, is_connection_loss
from desktop_app.core.skills.listing import list_skills
from desktop_app.core.tool_schemas import input_problem, output_problem

ListKind = Literal["resources", "prompts", "tools"]
"""A listing a server may announce as changed ("resources" covers the templates too)."""
LIST_KINDS: Final[tuple[ListKind, ...]] = ("resources", "prompts", "tools")
MAX_PAGES: Final = 1000


class Staleness:
    """The listings the server said changed since the last listing; `due` wakes the owner to re-list."""

    def __init__(self) -> None:
        self.due = asyncio.Event()
        self._kinds: set[ListKind] = set()

    def mark(self, kinds: Iterable[ListKind]) -> None:
        self._kinds.update(kinds)
        self.due.set()

    def take(self) -> set[ListKind]:
        """The listings to list again, forgotten as they are handed over."""
        self.due.clear()
        kinds, self._kinds = self._kinds, set()
        return kinds


async def list_catalog(
    client: Client,
    server: str,
    kept: ServerCatalog | None = None,
    stale: set[ListKind] | None = None,
    seen: Callable[[Any], None] | None = None,
) -> ServerCatalog:
    """List what the server offers; with `kept` and `stale`, only the stale listings, the others kept.
    `seen` is shown each page as it comes (what it says the server is: `server_claim`)."""
    caps = client.server_capabilities
    if stale is None:
        kept = None
    resources: tuple[Any, ...] = ()
    templates: tuple[Any, ...] = ()
    prompts: tuple[Any, ...] = ()
    tools: tuple[Any, ...] = ()
    if caps.resources is not None:
        if kept is not None and "resources" not in (stale or ()):
            resources, templates = kept.resources, kept.templates
        else:
            resources = await all_pages(lambda c: client.list_resources(cursor=c), "resources", seen)
            try:
                templates = await all_pages(
                    lambda c: client.list_resource_templates(cursor=c), "resource_templates", seen
                )
            except MCPError as exc:
                # Templates are optional: a server may list resources without implementing templates.
                if exc.code != METHOD_NOT_FOUND:
                    raise
    if caps.prompts is not None:
        if kept is not None and "prompts" not in (stale or ()):
            prompts = kept.prompts
        else:
            prompts = await all_pages(lambda c: client.list_prompts(cursor=c), "prompts", seen)
    if caps.tools is not None:
        if kept is not None and "tools" not in (stale or ()):
            tools = kept.tools
        else:
            tools = await all_pages(lambda c: client.list_tools(cursor=c), "tools", seen)
            ignore_output_schemas(client.session, await asyncio.to_thread(_judge_schemas, tools))
    skills: SkillListing | None = None
    if declared(caps) is not None:
        held = kept.skills if kept is not None else None
        skills = held if held is not None and held.fresh(time.monotonic()) else await _skills(client)
    return ServerCatalog(
        server=server,
        server_info=client.server_info,
        protocol_version=client.protocol_version,
        instructions=client.instructions,
        resources=resources,
        templates=templates,
        prompts=prompts,
        tools=tools,
        skills=skills,
    )


def _judge_schemas(tools: tuple[Any, ...]) -> list[str]:
    """Judge every tool's schemas once, off the event loop (checking one against its metaschema takes
    milliseconds); the catalog and the Servers panel then find each verdict made. Returns the tools
    whose output schema is to be ignored."""
    for tool in tools:
        input_problem(tool)
    return [tool.name for tool in tools if output_problem(tool) is not None]


async def _skills(client: Client) -> SkillListing:
    """The server's skills; a server that declares them but cannot list them offers none (and says why)."""
    try:
        return await list_skills(client.session)
    except Exception as exc:  # the rest of its catalog stands without its skills
        if is_connection_loss(exc) or (isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED):
            raise
        return SkillListing(malformed=(f"skills/list failed: {describe_error(exc)}",), listed_at=time.monotonic())


async def all_pages(
    fetch: Callable[[str | None], Awaitable[Any]], attr: str, on_page: Callable[[Any], None] | None = None
) -> tuple[Any, ...]:
    """Follow every `next_cursor` (each page shown to `on_page`); stop on a repeated cursor so a buggy
    server cannot loop us."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        if on_page is not None:
            on_page(page)
        items.extend(getattr(page, attr))
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            break
        seen.add(cursor)
    return tuple(items)

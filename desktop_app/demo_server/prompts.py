"""The demo server's prompts: one that points at a resource, one that opens a planning conversation."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import AssistantMessage, MCPServer, Message, UserMessage
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, ResourceLink
from pydantic import Field

from desktop_app.demo_server import content
from desktop_app.demo_server.content import GUIDE_URI


def _check_style(style: str) -> str:
    """An MCPError reaches the client verbatim; anything else becomes a generic rendering error."""
    normalized = style.strip().lower()
    if normalized not in content.SUMMARY_STYLES:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"Unknown style {style!r}; use one of: {', '.join(content.SUMMARY_STYLES)}.",
        )
    return normalized


def add_prompts(server: MCPServer[Any]) -> None:
    @server.prompt(
        name="summarize_resource",
        title="Summarize a resource",
        description="Ask the model to read a resource (it pulls it on demand) and summarize it in the chosen style.",
    )
    async def summarize_resource(
        uri: Annotated[str, Field(description="URI of the resource to summarize, e.g. demo://guide")],
        style: Annotated[
            str, Field(description="How to summarize: brief, detailed or bullets (default: brief)")
        ] = "brief",
    ) -> list[Message]:
        chosen = _check_style(style)
        listed = {r.uri: r for r in await server.list_resources()}
        known = listed.get(uri)
        link = ResourceLink(
            uri=uri,
            name=known.name if known else uri,
            title=known.title if known else None,
            mime_type=known.mime_type if known else None,
            size=known.size if known else None,
        )
        request = (
            f"Please read the resource {uri} and summarize it {content.SUMMARY_STYLES[chosen]} "
            f"(style: {chosen}). If it is not attached, fetch it with the read_resource tool. "
            "Start with one line saying what the resource is, and do not invent content it does not have."
        )
        return [UserMessage(request), UserMessage(link)]

    @server.prompt(
        name="plan_task",
        title="Plan a task",
        description="Start a planning conversation for a goal, with optional constraints; the model answers "
        "with concrete steps and says which resources and tools it would use.",
    )
    def plan_task(
        goal: Annotated[str, Field(description="What you want to achieve")],
        constraints: Annotated[
            str | None, Field(description="Limits to respect: time, budget, tools to avoid, ...")
        ] = None,
    ) -> list[Message]:
        limits = constraints.strip() if constraints and constraints.strip() else "none stated"
        request = (
            f"Help me plan this task.\n\nGoal: {goal.strip()}\nConstraints: {limits}\n\n"
            "Break it into numbered, concrete steps, each with what it needs and how I will know it is "
            "done. Where a step would use a resource or tool available in MCP Desk, name it; you can read "
            f"{GUIDE_URI} if you need to know what MCP Desk can do. Any tool call will be shown to me for "
            "approval first. Ask me before assuming anything the constraints do not cover."
        )
        opening = (
            f'Here is how I will approach "{goal.strip()}" (constraints: {limits}). First I will restate the '
            "goal and check what is unclear, then lay out the steps in order, and finally list the risks "
            "and the decisions that need you."
        )
        return [UserMessage(request), AssistantMessage(opening)]

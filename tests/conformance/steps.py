"""What the client does once connected, for the scenarios that need more than calling each tool.

Each step goes through the app's own paths: tool calls through the connection (its transport
mirrors `x-mcp-header` arguments into `Mcp-Param-*` headers), schemas as the catalog keeps them,
and skills through the skill-loading path (`core/skills`), as when the model picks one.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from desktop_app.core.asks.question import ScriptedAsker
from desktop_app.core.connection import ServerConnection
from desktop_app.core.skills.consent import SkillConsent, SkillDecision, SkillReply
from desktop_app.core.skills.listing import fetch_entry
from desktop_app.core.skills.loading import SkillLoader

CHAT: Final = "conformance"
SCHEMA_ECHO: Final = "json_schema_echo"
"""`json-schema-2020-12-preservation`'s tool: it takes back the other tool's input schema as the client holds it."""

Step = Callable[[ServerConnection, dict[str, Any]], Awaitable[None]]


async def drive(connection: ServerConnection, scenario: str, context: dict[str, Any]) -> bool:
    """Play `scenario`'s steps through the app's own paths; False leaves it to the default (call each tool)."""
    step = STEPS.get(scenario)
    if step is None:
        return False
    await step(connection, context)
    return True


async def listed_calls(connection: ServerConnection, context: dict[str, Any]) -> None:
    """Call each tool the scenario lists, with the arguments a model would have filled in."""
    for call in context["toolCalls"]:
        await connection.call_tool(call["name"], call["arguments"])


async def echo_schema(connection: ServerConnection, context: dict[str, Any]) -> None:
    """Hand the echo tool every other tool's input schema exactly as the catalog keeps it."""
    del context
    catalog = connection.catalog
    assert catalog is not None
    for tool in catalog.tools:
        if tool.name != SCHEMA_ECHO:
            await connection.call_tool(SCHEMA_ECHO, {"schema": tool.input_schema})


async def no_skill_picked(connection: ServerConnection, context: dict[str, Any]) -> None:
    """Connected and listed, nobody picks a skill: nothing of it may be read."""
    del connection, context


async def pick_each_skill(connection: ServerConnection, context: dict[str, Any]) -> None:
    """The model loads each listed skill (the user allows it when asked), then reads each file it lists.

    A skill that fails its checks is refused (said on stderr), and so are its files, unread."""
    del context
    catalog, client = connection.catalog, connection.client
    assert catalog is not None and catalog.skills is not None and client is not None, "no skills listed"
    loader = SkillLoader(SkillConsent(ScriptedAsker(lambda _question: SkillReply(SkillDecision.ALLOW_ONCE))))
    server = connection.name
    for entry in catalog.skills.entries:
        loaded = await loader.load(
            CHAT,
            server,
            entry,
            trusted=connection.config.trusted,
            stale=not catalog.skills.fresh(time.monotonic()),
            read=connection.read_resource,
            refresh=functools.partial(fetch_entry, client.session),
        )
        say(loaded.text if loaded.is_error else f"loaded skill {entry.uri}")
        for file in entry.files or ():
            if file.uri != entry.uri:
                read = await loader.read_file(CHAT, server, entry, file.uri, connection.read_resource)
                say(read.text if read.is_error else f"read {file.uri}")


def say(line: str) -> None:
    print(line, file=sys.stderr)


STEPS: Final[dict[str, Step]] = {
    "http-custom-headers": listed_calls,
    "json-schema-2020-12-preservation": echo_schema,
    "sep-2640-client-no-prefetch": no_skill_picked,
    "sep-2640-client-verify-digest": pick_each_skill,
    "sep-2640-client-verify-size": pick_each_skill,
    "sep-2640-client-verify-frontmatter": pick_each_skill,
}

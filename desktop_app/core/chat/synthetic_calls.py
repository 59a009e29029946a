"""The client-side tools run for the model: read_resource, invoke_prompt, search_resources, search_tools.

None of them acts on the world, so none is asked about; what they bring into the chat is shown
(a resource read, a prompt's messages) and marks the chat when it comes from a server the user
does not trust.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.chat.context import ContextBuilder
from desktop_app.core.chat.events import ChatEvent, PromptInjected, ResourceRead
from desktop_app.core.chat.prompts import invoke_prompt
from desktop_app.core.chat.server_instructions import read_instructions
from desktop_app.core.chat.synthetic import (
    INVOKE_PROMPT,
    READ_RESOURCE,
    SEARCH_TOOLS,
    image_message,
    read_for_model,
    search_resources,
    search_tools,
)
from desktop_app.core.chat.tool_specs import ToolOffer
from desktop_app.core.chat.turn_host import TurnHost
from desktop_app.core.model.settings import ChatOptions
from desktop_app.core.trust import prompt_taint, resource_taint


@dataclass(frozen=True)
class SyntheticOutcome:
    """The tool result's text, whether it is an error, and messages to add after every result."""

    text: str
    is_error: bool = False
    extra: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class SyntheticTools:
    """What the client-side tools need of the engine and the turn."""

    host: TurnHost
    options: ChatOptions
    builder: ContextBuilder
    offer: ToolOffer
    loaded: dict[str, list[str]]
    """Per conversation: tools found with `search_tools`, most recent first."""
    emit: Callable[[ChatEvent], None]
    taint: Callable[[str | None], None]

    async def run(
        self, conversation: str, name: str, arguments: dict[str, Any], search_offered: bool
    ) -> SyntheticOutcome:
        if name == READ_RESOURCE:
            return await self._read(conversation, arguments, search_offered)
        if name == INVOKE_PROMPT:
            return await self._prompt(arguments)
        query, server = arguments.get("query"), arguments.get("server")
        server = server if isinstance(server, str) else None
        if not isinstance(query, str) or not query.strip():
            return SyntheticOutcome(f"{name} needs a `query` string.", True)
        catalog = self.host.catalog
        if name == SEARCH_TOOLS:
            text, found, is_error = await asyncio.to_thread(search_tools, self.offer, catalog, query, server)
            earlier = self.loaded.get(conversation, [])
            self.loaded[conversation] = found + [t for t in earlier if t not in found]
            return SyntheticOutcome(text, is_error)
        text, is_error = await asyncio.to_thread(search_resources, self.builder, catalog, query, server)
        return SyntheticOutcome(text, is_error)

    async def _read(self, conversation: str, arguments: dict[str, Any], search_offered: bool) -> SyntheticOutcome:
        host, catalog = self.host, self.host.catalog
        uri, pages, server = arguments.get("uri"), arguments.get("pages"), arguments.get("server")
        if not isinstance(uri, str) or not uri:
            return SyntheticOutcome("read_resource needs a `uri` string.", True)
        if (instructions := read_instructions(catalog, uri, host.trust)) is not None:
            self.taint(instructions.taint)  # a server's own words, read like a resource of it
            return SyntheticOutcome(instructions.text, instructions.is_error)
        page_spec = str(pages) if pages not in (None, "") and self.options.pdf_text else None
        out = await read_for_model(
            host,
            catalog,
            uri,
            self.options,
            server=server if isinstance(server, str) and server else None,
            pages=page_spec,
            search_offered=search_offered,
            chat=conversation,
        )
        if out.server is not None and out.contents:
            self.emit(ResourceRead(uri, out.server, out.contents, out.truncated))
            self.taint(resource_taint(out.server, uri, host.trust(out.server)))
        extra = [image_message(out.images)] if out.images else []
        return SyntheticOutcome(out.text, out.is_error, extra)

    async def _prompt(self, arguments: dict[str, Any]) -> SyntheticOutcome:
        host = self.host
        prompt = arguments.get("name")
        if not isinstance(prompt, str) or not prompt:
            return SyntheticOutcome("invoke_prompt needs a prompt `name`.", True)
        server = arguments.get("server")
        result = await invoke_prompt(
            host, host.catalog, prompt, arguments.get("arguments"), server if isinstance(server, str) else None
        )
        if result.messages and result.server is not None and result.name is not None:
            self.emit(PromptInjected(result.server, result.name, result.messages))
            self.taint(prompt_taint(result.server, result.name, host.trust(result.server)))
        return SyntheticOutcome(result.text, result.is_error, list(result.messages))

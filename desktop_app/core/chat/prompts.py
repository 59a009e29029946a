"""Server prompts in the conversation: the `invoke_prompt` tool, and prompts the user picks.

A prompt the model invokes joins the conversation as turns; one the user picks becomes a draft
in the composer, with the resources it points to attached as chips.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import (
    AudioContent,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    PromptMessage,
    ResourceLink,
    TextContent,
)

from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.synthetic import NOT_FOUND_LIST, ToolInputError
from desktop_app.core.chat.tool_results import decode_base64, embedded_text, link_reference, media_descriptor
from desktop_app.core.chat.turn_host import TurnHost
from desktop_app.core.content import from_mcp
from desktop_app.core.server_errors import ServerRequestTimeout, ServerUnavailableError, describe_error
from desktop_app.core.skills.addresses import claimants, linked_from

PromptBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource


@dataclass(frozen=True)
class PromptOutput:
    text: str
    server: str | None = None
    name: str | None = None
    messages: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    is_error: bool = False


def _string_arguments(arguments: Any) -> dict[str, str]:
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise ToolInputError("`arguments` must be an object mapping argument names to strings")
    return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}


def _block_text(block: PromptBlock, origin: str) -> str:
    """One content block of a prompt message as chat text; embedded resources say where they came from."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, EmbeddedResource):
        return f"{embedded_text(from_mcp(block.resource))}\n[Provided by {origin}.]"
    if isinstance(block, ImageContent | AudioContent):
        kind = "Image" if isinstance(block, ImageContent) else "Audio"
        return media_descriptor(kind, block.mime_type, decode_base64(block.data))
    if isinstance(block, ResourceLink):
        return link_reference(block.uri, block.name, block.mime_type, block.size)
    return f"[Unsupported prompt content of type {getattr(block, 'type', '?')!r}]"


def _origin(server: str, name: str) -> str:
    return f"prompt '{name}' of server '{server}'"


def _turn(message: PromptMessage, origin: str) -> dict[str, Any]:
    return {
        "role": "assistant" if message.role == "assistant" else "user",
        "content": _block_text(message.content, origin),
    }


def prompt_messages(result: GetPromptResult, server: str, name: str) -> list[dict[str, Any]]:
    """A prompt's messages as chat turns (what the model gets when it invokes a prompt)."""
    return [_turn(message, _origin(server, name)) for message in result.messages]


@dataclass(frozen=True)
class PromptLink:
    """A resource a prompt points to, attachable like one the user dragged in."""

    server: str
    uri: str
    name: str
    mime_type: str | None = None


@dataclass(frozen=True)
class PromptDraft:
    """A prompt the user invoked, laid out for the composer.

    Per the spec a prompt is the user's own invocation: the user messages it ends with become the
    draft to edit and send (their text, and the resources they link or embed as attachments);
    any turns before those join the conversation as they are.
    """

    history: tuple[dict[str, Any], ...]
    text: str
    links: tuple[PromptLink, ...]


def _attachable(block: PromptBlock, catalog: Catalog, server: str) -> PromptLink | None:
    """The resource a block points to, when the app can read it again when the message is sent: from the
    prompt's own server, unless one other server alone offers it."""
    if isinstance(block, ResourceLink):
        owner = linked_from(catalog, block.uri, server)
        return PromptLink(owner, block.uri, block.title or block.name, block.mime_type)
    if isinstance(block, EmbeddedResource):
        uri = block.resource.uri
        if not claimants(catalog, uri):
            return None  # only its embedded copy exists: it stays in the text
        owner = linked_from(catalog, uri, server)
        known = catalog.resource(uri, owner)
        label = (known.title or known.name) if known is not None else uri.rstrip("/").rsplit("/", 1)[-1] or uri
        return PromptLink(owner, uri, label, block.resource.mime_type)
    return None


def prompt_draft(result: GetPromptResult, server: str, name: str, catalog: Catalog) -> PromptDraft:
    """Split a prompt the user chose into earlier turns and the draft it ends with."""
    messages = list(result.messages)
    split = len(messages)
    while split > 0 and messages[split - 1].role == "user":
        split -= 1
    origin = _origin(server, name)
    texts: list[str] = []
    links: list[PromptLink] = []
    for message in messages[split:]:
        link = _attachable(message.content, catalog, server)
        if link is None:
            texts.append(_block_text(message.content, origin))
        elif link not in links:
            links.append(link)
    text = "\n\n".join(part for part in texts if part.strip())
    return PromptDraft(tuple(_turn(m, origin) for m in messages[:split]), text, tuple(links))


def _prompt_list(catalog: Catalog) -> str:
    names = [f"{p.name} ({server})" for server, p in catalog.prompts()]
    return json.dumps(names[:NOT_FOUND_LIST])


async def invoke_prompt(
    host: TurnHost, catalog: Catalog, name: str, arguments: Any, server: str | None
) -> PromptOutput:
    """Get a prompt from its server; its messages are what the engine injects into the conversation."""
    matches = [(s, p) for s, p in catalog.prompts() if p.name == name and (server is None or s == server)]
    if not matches:
        where = f" on server '{server}'" if server else ""
        return PromptOutput(
            f"Prompt '{name}' not found{where}. Available prompts: {_prompt_list(catalog)}.", is_error=True
        )
    if len(matches) > 1:
        servers = ", ".join(s for s, _ in matches)
        return PromptOutput(
            f"Several servers offer a prompt '{name}' ({servers}); say which with `server`.", is_error=True
        )
    owner, prompt = matches[0]
    try:
        values = _string_arguments(arguments)
    except ToolInputError as exc:
        return PromptOutput(str(exc), is_error=True)
    missing = [a.name for a in prompt.arguments or () if a.required and not values.get(a.name)]
    if missing:
        return PromptOutput(f"Prompt '{name}' needs the argument(s) {json.dumps(missing)}.", is_error=True)
    try:
        result = await host.requests(owner).get_prompt(name, values)
    except MCPError as exc:
        return PromptOutput(
            f"Server '{owner}' could not give prompt '{name}': {exc.message}", owner, name, is_error=True
        )
    except (ServerUnavailableError, ServerRequestTimeout) as exc:
        return PromptOutput(f"Prompt '{name}' is unavailable: {describe_error(exc)}", owner, name, is_error=True)
    messages = prompt_messages(result, owner, name)
    text = (
        f"Prompt '{name}' of server '{owner}' added {len(messages)} message(s) to the conversation, "
        "right after this result. Continue by following them."
    )
    return PromptOutput(text, owner, name, tuple(messages))

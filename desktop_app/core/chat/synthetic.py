"""The client-side tools: `read_resource`, `invoke_prompt` and `search_resources`.

They run in the app, never reach a server as tool calls, and need no approval (reading and
prompt templates change nothing). Their descriptions are the model's routing logic: they
tell it when to pull content instead of guessing.
"""

from __future__ import annotations

import base64
import difflib
import json
from dataclasses import dataclass
from typing import Any, Final

from mcp.shared.exceptions import MCPError

from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.catalog_search import rank
from desktop_app.core.chat.context import ContextBuilder
from desktop_app.core.chat.pdf_text import PageRangeError, pdf_text
from desktop_app.core.chat.skill_reads import read_skill
from desktop_app.core.chat.tool_specs import ToolOffer
from desktop_app.core.chat.turn_host import TurnHost
from desktop_app.core.content import ResourceContent, describe_for_model, from_mcp, human_size
from desktop_app.core.image_limits import image_for_model
from desktop_app.core.model.settings import ChatOptions
from desktop_app.core.server_errors import ServerRequestTimeout, ServerUnavailableError
from desktop_app.core.skills.addresses import AddressError, route, skills_of

READ_RESOURCE: Final = "read_resource"
INVOKE_PROMPT: Final = "invoke_prompt"
SEARCH_RESOURCES: Final = "search_resources"
SEARCH_TOOLS: Final = "search_tools"
NOT_FOUND_LIST: Final = 20
SEARCH_RESULTS: Final = 25
_VISION_MIMES: Final = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

_READ_DESCRIPTION: Final = (
    "Read one resource from a connected MCP server and get its whole content. Call it whenever a resource "
    "in the catalog (or a URI the user mentions) could help answer: the catalog lists resources, it does not "
    "contain them, so never guess what one says. `uri` must be an exact URI from the catalog, or a resource "
    "template's URI with every {variable} filled in. Text arrives complete. {binary} Reading changes nothing "
    "and needs no approval; read several resources by calling it several times. A skill (listed under Skills) "
    "is loaded the same way, by reading its SKILL.md URI: the user is asked first, then its files can be read. "
    "Give `server` only when more than one server offers the URI: a read of such a URI without it is refused."
)
_BINARY_PLAIN: Final = "Binary files (PDF, images) arrive as a short description of type and size."
_BINARY_PDF: Final = (
    'A PDF arrives as its extracted text; pass `pages` (like "1-3,7") to read only some pages of a long one.'
)
_BINARY_IMAGE: Final = "Images are attached so you can look at them."
_PROMPT_DESCRIPTION: Final = (
    'Use one of the servers\' prompts (listed under "Prompts" in the catalog): its messages are added to this '
    "conversation and you then continue by following them. Use it when the user asks for a listed prompt by "
    "name or by what it does. `arguments` maps each argument name to a string value; arguments marked * in "
    "the catalog are required. Give `server` only when two servers offer a prompt with the same name."
)
_SEARCH_DESCRIPTION: Final = (
    "Search the whole catalog of resources, resource templates and skills, including the many that the system prompt "
    "does not list. Returns matching URIs with their names, types and sizes, not their content; then call "
    "read_resource on the relevant ones. `query`: a few keywords from a name, title, description or URI. "
    "`server`: only search that server."
)


_SEARCH_TOOLS_DESCRIPTION: Final = (
    "The connected servers have more tools than can be offered at once; only some are in your tool list. "
    "Search all of them by what you want to do: this returns matching tools' names, servers and descriptions, "
    "and the tools it finds become callable in your next step. `query`: a few keywords for the action you need. "
    "`server`: only search that server."
)


def synthetic_tool_specs(options: ChatOptions, *, search: bool, tool_search: bool = False) -> list[dict[str, Any]]:
    """The client-side tools in OpenAI function format; the searches only when the catalog or tools are cut."""
    binary = _BINARY_PLAIN
    if options.pdf_text or options.images_to_model:
        binary = " ".join(
            x for x in (_BINARY_PDF if options.pdf_text else "", _BINARY_IMAGE if options.images_to_model else "") if x
        )
    read_props: dict[str, Any] = {
        "uri": {"type": "string", "description": "The exact resource URI, e.g. one listed in the catalog."},
        "server": {"type": "string", "description": "Optional: the server offering the URI, as the catalog names it."},
    }
    if options.pdf_text:
        read_props["pages"] = {
            "type": "string",
            "description": 'PDF only, optional: 1-based pages to extract, like "2" or "1-3,7".',
        }
    specs = [
        _function(
            READ_RESOURCE,
            _READ_DESCRIPTION.replace("{binary}", binary),
            {"type": "object", "properties": read_props, "required": ["uri"]},
        ),
        _function(
            INVOKE_PROMPT,
            _PROMPT_DESCRIPTION,
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The prompt's name as listed in the catalog."},
                    "arguments": {
                        "type": "object",
                        "description": "Argument name to string value.",
                        "additionalProperties": {"type": "string"},
                    },
                    "server": {"type": "string", "description": "Optional: the server offering the prompt."},
                },
                "required": ["name"],
            },
        ),
    ]
    if search:
        specs.append(_search(SEARCH_RESOURCES, _SEARCH_DESCRIPTION, "Keywords to look for."))
    if tool_search:
        specs.append(_search(SEARCH_TOOLS, _SEARCH_TOOLS_DESCRIPTION, "Keywords for the action you need."))
    return specs


def search_tools(offer: ToolOffer, catalog: Catalog, query: str, server: str | None) -> tuple[str, list[str], bool]:
    """Tools matching `query`, best first: (text for the model, exposed names found, is_error)."""
    if server is not None and server not in catalog.servers:
        return f"No server named '{server}'. Servers: {json.dumps(sorted(catalog.servers))}.", [], True
    hits = offer.rank(catalog, query, server)[:SEARCH_RESULTS]
    if not hits:
        return f"No tool matches '{query}'. Try other or fewer words.", [], False
    lines = [
        f"- {t.exposed_name} [server: {t.server}]: {' '.join((t.tool.description or '').split())[:200]}" for t in hits
    ]
    text = f"{len(hits)} tool(s) for '{query}'; they are callable from your next step:\n" + "\n".join(lines)
    return text, [t.exposed_name for t in hits], False


def _search(name: str, description: str, query: str) -> dict[str, Any]:
    """A search tool: a keyword `query`, optionally limited to one server."""
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": query},
            "server": {"type": "string", "description": "Optional: limit the search to this server."},
        },
        "required": ["query"],
    }
    return _function(name, description, parameters)


def _function(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


class ToolInputError(ValueError):
    """The model's arguments to a synthetic tool are unusable; the message is its tool result."""


# -- read_resource --------------------------------------------------------------------------


@dataclass(frozen=True)
class ImagePart:
    """An image to show a vision model, as a data URL in an extra user message."""

    uri: str
    mime_type: str
    data: bytes


@dataclass(frozen=True)
class ReadOutput:
    text: str
    server: str | None = None
    contents: tuple[ResourceContent, ...] = ()
    images: tuple[ImagePart, ...] = ()
    truncated: bool = False
    is_error: bool = False


def not_found_message(catalog: Catalog, uri: str, *, search_offered: bool) -> str:
    """`Resource '<uri>' not found. Available URIs: [...]`, closest first, bounded, with a way on."""
    uris = [r.uri for _, r in catalog.resources()]
    close = difflib.get_close_matches(uri, uris, n=NOT_FOUND_LIST // 2, cutoff=0.5) if len(uris) <= 20_000 else []
    shown = close + [u for u in uris if u not in close][: NOT_FOUND_LIST - len(close)]
    text = f"Resource '{uri}' not found. Available URIs: {json.dumps(shown)}"
    if len(uris) > len(shown):
        text += f" (and {len(uris) - len(shown):,} more"
        text += "; use search_resources to find others)" if search_offered else ")"
    templates = [t.uri_template for _, t in catalog.templates()]
    if templates:
        text += f". Templates (fill in the variables): {json.dumps(templates[:NOT_FOUND_LIST])}"
    return text + "."


async def _render_content(
    content: ResourceContent, options: ChatOptions, pages: str | None
) -> tuple[str, ImagePart | None]:
    if content.is_binary and content.data is not None:
        essence = content.mime_essence
        if options.pdf_text and essence == "application/pdf":
            try:
                return await pdf_text(content.data, pages), None
            except PageRangeError as exc:
                raise ToolInputError(str(exc)) from None
            except Exception as exc:  # a damaged PDF: say so and fall back to the descriptor
                return f"{describe_for_model(content)}\n[Text extraction failed: {exc}]", None
        if options.images_to_model and essence in _VISION_MIMES:
            image = await image_for_model(content.data, essence)
            if image.data is None:
                return f"{describe_for_model(content)}\n[The image is {image.note}.]", None
            shrunk = f"; {image.note}" if image.note else ""
            note = f"\n[The image is attached in the next message{shrunk}.]"
            return describe_for_model(content) + note, ImagePart(content.uri, image.mime_type, image.data)
    return describe_for_model(content), None


def cap_text(text: str, cap_bytes: int) -> tuple[str, bool]:
    """`text` whole when it fits, else the part that fits behind an explicit notice of the full size."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= cap_bytes:
        return text, False
    kept = raw[:cap_bytes].decode("utf-8", "ignore")
    notice = (
        f"[Truncated by MCP Desk's safety cap: the full content is {human_size(len(raw))} "
        f"({len(text):,} characters); only the first {human_size(cap_bytes)} "
        f"({len(kept):,} characters) follows. The rest was not sent.]"
    )
    return f"{notice}\n{kept}\n[End of the truncated content.]", True


async def read_for_model(
    host: TurnHost,
    catalog: Catalog,
    uri: str,
    options: ChatOptions,
    *,
    server: str | None = None,
    pages: str | None = None,
    search_offered: bool,
    chat: str | None = None,
) -> ReadOutput:
    """Read `uri` from `server`, or the one server offering it, and render every content item for the model.

    A URI of one of that server's skills goes through the skill-loading path, for `chat` (by default
    the one the user is in). A URI several servers offer, with no `server` named, is refused naming them.
    """
    try:
        server = route(catalog, uri, server)
    except AddressError as exc:
        return ReadOutput(str(exc), is_error=True)
    if server is None:
        return ReadOutput(not_found_message(catalog, uri, search_offered=search_offered), is_error=True)
    if skills_of(catalog, server, uri):
        return await _read_skill(host, catalog, server, uri, options, pages, chat)
    try:
        result = await host.requests(server).read_resource(uri)
    except MCPError as exc:
        return ReadOutput(
            f"Error reading resource '{uri}' from server '{server}': {exc.message}", server, is_error=True
        )
    except (ServerUnavailableError, ServerRequestTimeout) as exc:
        return ReadOutput(f"Error reading resource '{uri}': {exc}", server, is_error=True)
    contents = tuple(from_mcp(item) for item in result.contents)
    if not contents:
        return ReadOutput(f"Resource '{uri}' is empty (the server returned no content).", server)
    try:
        text, images = await render_contents(contents, options, pages)
    except ToolInputError as exc:
        return ReadOutput(f"Cannot read '{uri}': {exc}", server, contents, is_error=True)
    text, truncated = cap_text(text, options.read_cap_bytes)
    return ReadOutput(text, server, contents, images, truncated)


async def _read_skill(
    host: TurnHost,
    catalog: Catalog,
    server: str,
    uri: str,
    options: ChatOptions,
    pages: str | None,
    chat: str | None,
) -> ReadOutput:
    """A skill loaded (its text, tagged), or a file of a loaded skill rendered as any resource, under its origin."""
    skill = await read_skill(host, catalog, server, uri, chat)
    if skill.is_error or skill.content is None:
        return ReadOutput(skill.text, skill.server, is_error=True)
    contents = (skill.content,)
    text = skill.text
    images: tuple[ImagePart, ...] = ()
    if not text:
        try:
            rendered, images = await render_contents(contents, options, pages)
        except ToolInputError as exc:
            return ReadOutput(f"Cannot read '{uri}': {exc}", skill.server, contents, is_error=True)
        text = f"[A file of a skill from server '{skill.server}':]\n{rendered}"
    text, truncated = cap_text(text, options.read_cap_bytes)
    return ReadOutput(text, skill.server, contents, images, truncated)


async def render_contents(
    contents: tuple[ResourceContent, ...], options: ChatOptions, pages: str | None = None
) -> tuple[str, tuple[ImagePart, ...]]:
    """Every content item for the model; several items are each labelled with URI and type."""
    rendered: list[str] = []
    images: list[ImagePart] = []
    for index, content in enumerate(contents, start=1):
        text, image = await _render_content(content, options, pages)
        if image is not None:
            images.append(image)
        if len(contents) > 1:
            mime = content.mime_type or "unknown type"
            text = f"[Content {index} of {len(contents)}: {content.uri} ({mime})]\n{text}"
        rendered.append(text)
    return "\n\n".join(rendered), tuple(images)


def image_message(images: tuple[ImagePart, ...]) -> dict[str, Any]:
    """A user message carrying images for a vision model (tool results must be plain strings)."""
    parts: list[dict[str, Any]] = []
    for image in images:
        parts.append(
            {"type": "text", "text": f"Image of resource {image.uri} ({image.mime_type}), read with read_resource:"}
        )
        url = f"data:{image.mime_type};base64,{base64.b64encode(image.data).decode('ascii')}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": "user", "content": parts}


# -- search_resources -----------------------------------------------------------------------


def search_resources(builder: ContextBuilder, catalog: Catalog, query: str, server: str | None) -> tuple[str, bool]:
    """Catalog lines of the resources and templates matching `query`, best first; (text, is_error)."""
    if server is not None and server not in catalog.servers:
        return f"No server named '{server}'. Servers: {json.dumps(sorted(catalog.servers))}.", True
    entries = [e for e in builder.entries(catalog) if e.kind != "prompt" and (server is None or e.server == server)]
    hits = [entry for _, entry in rank(entries, query)]
    if not hits:
        return f"No resource or template matches '{query}'. Try other or fewer words.", False
    shown = hits[:SEARCH_RESULTS]
    lines = [f"{e.line} [server: {e.server}{'' if e.kind == 'resource' else ', ' + e.kind}]" for e in shown]
    head = f"{len(hits):,} match(es) for '{query}'"
    head += f"; the best {len(shown)}:" if len(hits) > len(shown) else ":"
    return head + "\n" + "\n".join(lines), False

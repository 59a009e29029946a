"""The system prompt: instructions and a catalog of what can be read, never the content itself.

A model that is handed every resource up front pays for all of it on every turn, and sees
truncated copies of the long ones. Here it gets a catalog (URIs, names, types, sizes) and
pulls what it needs with `read_resource`. The catalog stays within a token budget: past it,
each server is summarised, the entries most relevant to the conversation are listed, and
`search_resources` finds the rest. Servers' instructions go in only for the servers the user
trusts, fenced and attributed (`server_instructions.py`). Skills are listed the same way, one line
each (the URI of their `SKILL.md`, name, description): their bodies enter a chat only when the
model loads one and the user allows it (`skill_reads.py`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from mcp_types import BlobResourceContents, TextResourceContents

from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.catalog_parts import (
    KINDS,
    BatchCounter,
    CatalogParts,
    ServerPart,
    catalog_parts,
    section_title,
)
from desktop_app.core.chat.catalog_search import CatalogEntry, EntryKind, rank
from desktop_app.core.chat.server_instructions import prompt_lines
from desktop_app.core.host import ServerHost

TokenCounter = Callable[[str], int]

_MAX_MISSES: Final = 50
MAX_TOKEN_BYTES: Final = 256
"""No tokenizer's token spans more bytes (tiktoken's longest is 128): a catalog whose lines hold
more characters (each at least a byte) than this many times a budget cannot fit in it, and needs
no count to say so."""

BASE_INSTRUCTIONS: Final = """\
You are the assistant in MCP Desk, a desktop app connected to MCP servers. \
Below is a catalog of what those servers offer. It lists resources by URI; their content is \
NOT in this conversation until you read it.
- When a resource may help answer, call read_resource with its exact URI; it returns the whole content. \
For a resource template, fill in its {variables} and read the resulting URI.
- Use invoke_prompt when the user asks for one of the listed prompts; its messages join the conversation.
- Server tools (named server__tool) may act on the world; the user approves each call and may decline.
- Do not guess a resource's content: read it, then answer and name the URIs you used."""
SKILL_INSTRUCTIONS: Final = """\
- A skill is a server's written procedure for a kind of task. When one listed under Skills fits the task, \
load it with read_resource on its SKILL.md URI (the user is asked first), then follow it as far as the \
user's request goes. A skill grants no permissions."""


@dataclass(frozen=True)
class SystemPrompt:
    """The prompt sent as the first message of each model call, with its cost."""

    text: str
    tokens: int
    catalog_tokens: int
    full_catalog_tokens: int | None
    """None when not counted: the catalog is far over the budget (`ContextBuilder.full_tokens` counts it)."""
    listed: int
    total: int

    @property
    def summarized(self) -> bool:
        """True when some entries were left out for the budget (and `search_resources` is offered)."""
        return self.listed < self.total


def catalog_entries(catalog: Catalog, known: dict[str, ServerPart] | None = None) -> list[CatalogEntry]:
    """Every resource, then every template, then every prompt and skill as a catalog line, in stable server
    order. `known` keeps each server's lines between calls: a catalog that changed in one server
    (another server connected, new tools listed) makes lines for that server's new listings only."""
    return catalog_parts(catalog, known).entries


def _render(
    view: CatalogParts,
    chosen: Iterable[CatalogEntry] | None,
    *,
    summaries: bool = False,
    instructions: bool = True,
    trusted: frozenset[str] = frozenset(),
) -> str:
    """The catalog text: per server, its instructions, its summary (with `summaries`), then its chosen
    entries (None: all of them, each server's listing as its part keeps it).

    Without `instructions` it is the catalog proper, which is what the budget bounds; each
    server's instructions are bounded on their own (`server_instructions.py`). Only the
    `trusted` servers' instructions are in it; the others' say where the model may read them.
    """
    by_server: dict[str, dict[EntryKind, list[str]]] = {}
    for entry in chosen or ():
        by_server.setdefault(entry.server, {}).setdefault(entry.kind, []).append(entry.line)
    parts: list[str] = []
    for part in view.parts:
        server = part.name
        snapshot = view.catalog.servers[server]
        block = [f'## Server "{server}"']
        if instructions:
            block.extend(prompt_lines(server, snapshot, server in trusted))
        if summaries:
            block.append(part.summary)
        if chosen is None:
            if part.listing:
                block.append(part.listing)
        else:
            for kind in KINDS:
                lines = by_server.get(server, {}).get(kind)
                if lines:
                    block.append(section_title(kind))
                    block.extend(lines)
        if len(block) == 1:
            block.append("(offers tools only)" if snapshot.tools else "(offers nothing yet)")
        parts.append("\n".join(block))
    return "\n\n".join(parts)


def _prompt_text(view: CatalogParts, body: str) -> str:
    base = BASE_INSTRUCTIONS + ("\n" + SKILL_INSTRUCTIONS if view.has_skills else "")
    return base + "\n\n# Catalog\n\n" + (body or "No server is connected.")


class ContextBuilder:
    """Builds the bounded system prompt from the catalog's server parts, kept between builds: a build after
    one server changed makes that server's part only, and a send after the catalog was counted (the
    context meter counts each new one) joins parts and counts the prompt, in one request to the tokenizer.
    """

    def __init__(self, count: TokenCounter, budget: int, count_many: BatchCounter | None = None) -> None:
        """`count_many` counts several texts at once (by default, one `count` each)."""
        self._count = count
        self._count_many: BatchCounter = count_many or (lambda texts: [count(text) for text in texts])
        self.budget = budget
        self._cache: tuple[Catalog, str, frozenset[str], SystemPrompt] | None = None
        self._view: CatalogParts | None = None
        self._known: dict[str, ServerPart] = {}
        self._full: tuple[tuple[object, ...], int] | None = None
        """The whole catalog's count, and the parts it was counted for (a tools-only change keeps it)."""
        self._summarized: tuple[tuple[ServerPart, ...], int] | None = None
        """The count of the servers' headings and summaries alone (a catalog over budget starts from it)."""
        self._titles: dict[EntryKind, int] = {}
        self._indexing = threading.Lock()
        """Builds run in worker threads: a turn sent while the context meter indexes a new catalog
        waits for that index instead of building a second one beside it."""
        self._counting = threading.Lock()

    def parts(self, catalog: Catalog) -> CatalogParts:
        """The server parts of `catalog`: made again only for the servers whose listings changed."""
        with self._indexing:
            if self._view is None or self._view.catalog is not catalog:
                self._view = catalog_parts(catalog, self._known)
            return self._view

    def entries(self, catalog: Catalog) -> list[CatalogEntry]:
        return self.parts(catalog).entries

    def full_tokens(self, catalog: Catalog) -> int:
        """What listing the whole catalog would cost: counted once per set of listings (about 0.05 s of
        CPU at 10,000 resources), when a prompt or the context meter needs it."""
        view = self.parts(catalog)
        with self._counting:
            key = view.key
            if self._full is None or self._full[0] != key:
                self._full = (key, self._count(_render(view, None, instructions=False)))
            return self._full[1]

    def build(self, catalog: Catalog, query: str = "", trusted: frozenset[str] = frozenset()) -> SystemPrompt:
        """The prompt for `catalog`, favouring entries relevant to `query` when not all fit.

        `trusted`: the servers the user trusts, whose instructions the prompt carries.
        """
        cached = self._cache
        if cached is not None and cached[0] is catalog and cached[1] == query and cached[2] == trusted:
            return cached[3]
        view = self.parts(catalog)
        full_tokens: int | None = None
        if view.chars <= self.budget * MAX_TOKEN_BYTES:
            full_tokens = self.full_tokens(catalog)
        if full_tokens is not None and full_tokens <= self.budget:
            chosen: list[CatalogEntry] = view.entries
            text = _prompt_text(view, _render(view, None, trusted=trusted))
            catalog_tokens, tokens = full_tokens, self._count(text)
        else:
            chosen = self._bounded(view, query)
            chosen, text, catalog_tokens, tokens = self._fitted(view, chosen, trusted)
        prompt = SystemPrompt(
            text=text,
            tokens=tokens,
            catalog_tokens=catalog_tokens,
            full_catalog_tokens=full_tokens,
            listed=len(chosen),
            total=len(view.entries),
        )
        self._cache = (catalog, query, trusted, prompt)
        return prompt

    def _bounded(self, view: CatalogParts, query: str) -> list[CatalogEntry]:
        """The entries that fit the budget beside every server's summary, relevant ones first, in catalog order."""
        entries = view.entries
        used = self._summaries_tokens(view)
        # Relevant entries first; then templates and prompts (few, and each stands for many
        # resources); then resources in catalog order, so an empty query still shows some.
        # The searched text is made for an empty question too: the context meter's build makes it, a send finds it.
        ranked = [entry for _, entry in rank(entries, query, view.haystack)]
        resources = sum(len(part.resources) for part in view.parts)  # the entries begin with the resources
        order = ranked + entries[resources:] + entries[:resources]
        chosen: list[CatalogEntry] = []
        seen: set[int] = set()
        headers: set[tuple[str, EntryKind]] = set()
        misses = 0
        for index, entry in enumerate(order):
            if id(entry) in seen:
                continue
            seen.add(id(entry))
            cost = view.cost(order, index, self._count_many) + 1
            if (entry.server, entry.kind) not in headers:
                cost += self._title_tokens(entry.kind) + 1
            if used + cost > self.budget:
                misses += 1
                if misses > _MAX_MISSES:
                    break
                continue
            chosen.append(entry)
            headers.add((entry.server, entry.kind))
            used += cost
            if self.budget - used < 8:
                break
        chosen.sort(key=lambda e: view.position[id(e)])
        return chosen

    def _fitted(
        self, view: CatalogParts, chosen: list[CatalogEntry], trusted: frozenset[str]
    ) -> tuple[list[CatalogEntry], str, int, int]:
        """`chosen` less its last entries while the catalog counts over budget (per-line estimates can
        undercount joins), the prompt's text, and the catalog's and the prompt's tokens (counted together)."""
        while True:
            listed = _render(view, chosen, summaries=True, instructions=False)
            text = _prompt_text(view, _render(view, chosen, summaries=True, trusted=trusted))
            tokens, prompt_tokens = self._count_many([listed, text])
            if tokens <= self.budget or not chosen:
                return chosen, text, tokens, prompt_tokens
            chosen.pop()

    def _summaries_tokens(self, view: CatalogParts) -> int:
        """The servers' headings and summaries, counted once per set of server parts."""
        key = view.parts
        found = self._summarized
        if found is None or found[0] != key:
            found = self._summarized = (key, self._count(_render(view, [], summaries=True, instructions=False)))
        return found[1]

    def _title_tokens(self, kind: EntryKind) -> int:
        if kind not in self._titles:
            self._titles[kind] = self._count(section_title(kind))
        return self._titles[kind]


async def naive_dump_tokens(host: ServerHost, catalog: Catalog, count: TokenCounter, concurrency: int = 8) -> int:
    """What pasting every resource of `catalog` into the prompt would cost: text as is, binary as base64.

    This is the figure the catalog is compared against; it reads every resource once.
    """
    gate = asyncio.Semaphore(concurrency)

    async def one(server: str, uri: str) -> int:
        async with gate:
            try:
                result = await host.connection(server).read_resource(uri)
            except Exception:  # an unreadable resource costs nothing to a naive host either
                return 0
        parts = [
            item.text if isinstance(item, TextResourceContents) else item.blob
            for item in result.contents
            if isinstance(item, TextResourceContents | BlobResourceContents)
        ]
        return await asyncio.to_thread(count, "\n".join(parts))

    return sum(await asyncio.gather(*(one(server, r.uri) for server, r in catalog.resources())))

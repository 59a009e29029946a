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
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from mcp_types import BlobResourceContents, TextResourceContents

from desktop_app.core.catalog import Catalog, ServerCatalog
from desktop_app.core.chat.catalog_search import CatalogEntry, EntryKind, rank
from desktop_app.core.chat.server_instructions import prompt_lines
from desktop_app.core.content import human_size
from desktop_app.core.host import ServerHost
from desktop_app.core.skills.manifest import problem

TokenCounter = Callable[[str], int]

_PREFIXES_SHOWN: Final = 4
_MAX_MISSES: Final = 50
MAX_TOKEN_BYTES: Final = 256
"""No tokenizer's token spans more bytes (tiktoken's longest is 128): a catalog whose lines hold
more characters (each at least a byte) than this many times a budget cannot fit in it, and needs
no count to say so."""
KINDS: Final[tuple[EntryKind, ...]] = ("resource", "template", "prompt", "skill")

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


def _resource_line(uri: str, name: str, title: str | None, mime: str | None, size: int | None, desc: str | None) -> str:
    label = title or name
    if label and uri.rstrip("/").rsplit("/", 1)[-1] == label:
        label = ""  # the URI already ends with it: saying it twice costs tokens on every turn
    details = ", ".join(x for x in (mime, human_size(size) if size is not None else None) if x)
    line = f"- {uri}"
    if label and label != uri:
        line += f" — {label}"
    if details:
        line += f" ({details})"
    if desc:
        line += f": {_one_line(desc)}"
    return line


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class _ServerEntries(NamedTuple):
    """One server's catalog lines by kind, and the listings they were made from."""

    listings: tuple[object, object, object, object]
    resources: list[CatalogEntry]
    templates: list[CatalogEntry]
    prompts: list[CatalogEntry]
    skills: list[CatalogEntry]


def _server_entries(name: str, snapshot: ServerCatalog) -> _ServerEntries:
    resources: list[CatalogEntry] = []
    templates: list[CatalogEntry] = []
    prompts: list[CatalogEntry] = []
    for r in snapshot.resources:
        line = _resource_line(r.uri, r.name, r.title, r.mime_type, r.size, r.description)
        text = " ".join(filter(None, (r.uri, r.name, r.title, r.description, r.mime_type))).lower()
        resources.append(CatalogEntry("resource", name, r.uri, line, text))
    for t in snapshot.templates:
        line = _resource_line(t.uri_template, t.name, t.title, t.mime_type, None, t.description)
        text = " ".join(filter(None, (t.uri_template, t.name, t.title, t.description, t.mime_type))).lower()
        templates.append(CatalogEntry("template", name, t.uri_template, line, text))
    for p in snapshot.prompts:
        args = ", ".join(f"{a.name}{'*' if a.required else ''}" for a in p.arguments or ())
        line = f"- {p.name}({args})"
        if p.description:
            line += f": {_one_line(p.description)}"
        text = " ".join(x for x in (p.name, p.title, p.description, *(a.name for a in p.arguments or ())) if x)
        prompts.append(CatalogEntry("prompt", name, p.name, line, text.lower()))
    skills: list[CatalogEntry] = []
    for entry in snapshot.skills.entries if snapshot.skills is not None else ():
        if problem(entry) is None:  # the browser says why the others cannot be loaded
            line = f"- {entry.uri} — {_one_line(entry.name, 64)}: {_one_line(entry.description)}"
            text = " ".join((entry.uri, entry.name, entry.description)).lower()
            skills.append(CatalogEntry("skill", name, entry.uri, line, text))
    listings = (snapshot.resources, snapshot.templates, snapshot.prompts, snapshot.skills)
    return _ServerEntries(listings, resources, templates, prompts, skills)


def catalog_entries(catalog: Catalog, known: dict[str, _ServerEntries] | None = None) -> list[CatalogEntry]:
    """Every resource, then every template, then every prompt as a catalog line, in stable server
    order. `known` keeps each server's lines between calls: a catalog that changed in one server
    (another server connected, new tools listed) makes lines for that server's new listings only."""
    parts: list[_ServerEntries] = []
    for name in sorted(catalog.servers):
        snapshot = catalog.servers[name]
        part = known.get(name) if known is not None else None
        listings = (snapshot.resources, snapshot.templates, snapshot.prompts, snapshot.skills)
        if part is None or any(a is not b for a, b in zip(part.listings, listings, strict=True)):
            part = _server_entries(name, snapshot)
        parts.append(part)
    if known is not None:
        known.clear()
        known.update(zip(sorted(catalog.servers), parts, strict=True))
    return [
        *(e for part in parts for e in part.resources),
        *(e for part in parts for e in part.templates),
        *(e for part in parts for e in part.prompts),
        *(e for part in parts for e in part.skills),
    ]


def _section_title(kind: EntryKind) -> str:
    return {
        "resource": "Resources (read_resource):",
        "template": "Templates (fill in the {variables}, then read_resource):",
        "prompt": "Prompts (invoke_prompt):",
        "skill": "Skills (load one with read_resource on its SKILL.md URI; the user is asked first):",
    }[kind]


def _render(
    catalog: Catalog,
    chosen: Iterable[CatalogEntry],
    summaries: dict[str, str],
    *,
    instructions: bool = True,
    trusted: frozenset[str] = frozenset(),
) -> str:
    """The catalog text: per server, its instructions, optional summary, then its chosen entries.

    Without `instructions` it is the catalog proper, which is what the budget bounds; each
    server's instructions are bounded on their own (`server_instructions.py`). Only the
    `trusted` servers' instructions are in it; the others' say where the model may read them.
    """
    by_server: dict[str, dict[EntryKind, list[str]]] = {}
    for entry in chosen:
        by_server.setdefault(entry.server, {}).setdefault(entry.kind, []).append(entry.line)
    parts: list[str] = []
    for server in sorted(catalog.servers):
        snapshot = catalog.servers[server]
        block = [f'## Server "{server}"']
        if instructions:
            block.extend(prompt_lines(server, snapshot, server in trusted))
        if server in summaries:
            block.append(summaries[server])
        for kind in KINDS:
            lines = by_server.get(server, {}).get(kind)
            if lines:
                block.append(_section_title(kind))
                block.extend(lines)
        if len(block) == 1:
            block.append("(offers tools only)" if snapshot.tools else "(offers nothing yet)")
        parts.append("\n".join(block))
    return "\n\n".join(parts)


def _summary(catalog: Catalog, entries: Sequence[CatalogEntry], server: str) -> str:
    """`Offers 10,000 resources, 2 templates, 0 prompts; URIs mostly under: a:// (6,000), ...`."""
    mine = [e for e in entries if e.server == server]
    counts = Counter(e.kind for e in mine)
    skills = f", {counts['skill']:,} skills" if counts["skill"] else ""
    text = (
        f"Offers {counts['resource']:,} resources, {counts['template']:,} templates{skills} and "
        f"{counts['prompt']:,} prompts; not all are listed here (use search_resources)."
    )
    prefixes = Counter(_prefix(e.key) for e in mine if e.kind == "resource")
    if prefixes:
        common = ", ".join(f"{p} ({c:,})" for p, c in prefixes.most_common(_PREFIXES_SHOWN))
        text += f" Resource URIs by prefix: {common}."
    return text


def _prefix(uri: str) -> str:
    """`docs://guides/setup.md` -> `docs://guides/`: the scheme plus the first path segment."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        return uri.split(":", 1)[0] + ":"
    head, slash, _ = rest.partition("/")
    return f"{scheme}://{head}{slash}"


class ContextBuilder:
    """Builds the bounded system prompt; caches the last build (catalogs are immutable)."""

    def __init__(self, count: TokenCounter, budget: int) -> None:
        self._count = count
        self.budget = budget
        self._cache: tuple[Catalog, str, frozenset[str], SystemPrompt] | None = None
        self._entries: tuple[Catalog, list[CatalogEntry]] | None = None
        self._full: tuple[Catalog, int] | None = None
        self._known: dict[str, _ServerEntries] = {}
        self._indexing = threading.Lock()
        """Builds run in worker threads: a turn sent while the context meter indexes a new catalog
        waits for that index instead of building a second one beside it."""
        self._counting = threading.Lock()

    def entries(self, catalog: Catalog) -> list[CatalogEntry]:
        with self._indexing:
            if self._entries is None or self._entries[0] is not catalog:
                self._entries = (catalog, catalog_entries(catalog, self._known))
            return self._entries[1]

    def full_tokens(self, catalog: Catalog) -> int:
        """What listing the whole catalog would cost: counted once per catalog (about 0.05 s of
        CPU at 10,000 resources), when a prompt or the context meter needs it."""
        entries = self.entries(catalog)
        with self._counting:
            if self._full is None or self._full[0] is not catalog:
                self._full = (catalog, self._count(_render(catalog, entries, {}, instructions=False)))
            return self._full[1]

    def build(self, catalog: Catalog, query: str = "", trusted: frozenset[str] = frozenset()) -> SystemPrompt:
        """The prompt for `catalog`, favouring entries relevant to `query` when not all fit.

        `trusted`: the servers the user trusts, whose instructions the prompt carries.
        """
        cached = self._cache
        if cached is not None and cached[0] is catalog and cached[1] == query and cached[2] == trusted:
            return cached[3]
        entries = self.entries(catalog)
        full_tokens: int | None = None
        if sum(len(entry.line) for entry in entries) <= self.budget * MAX_TOKEN_BYTES:
            full_tokens = self.full_tokens(catalog)
        if full_tokens is not None and full_tokens <= self.budget:
            chosen: list[CatalogEntry] = entries
            body = _render(catalog, entries, {}, trusted=trusted)
            catalog_tokens = full_tokens
        else:
            chosen, body, catalog_tokens = self._bounded(catalog, entries, query, trusted)
        base = BASE_INSTRUCTIONS + ("\n" + SKILL_INSTRUCTIONS if any(e.kind == "skill" for e in entries) else "")
        text = base + "\n\n# Catalog\n\n" + (body or "No server is connected.")
        prompt = SystemPrompt(
            text=text,
            tokens=self._count(text),
            catalog_tokens=catalog_tokens,
            full_catalog_tokens=full_tokens,
            listed=len(chosen),
            total=len(entries),
        )
        self._cache = (catalog, query, trusted, prompt)
        return prompt

    def _bounded(
        self, catalog: Catalog, entries: list[CatalogEntry], query: str, trusted: frozenset[str]
    ) -> tuple[list[CatalogEntry], str, int]:
        summaries = {server: _summary(catalog, entries, server) for server in catalog.servers}
        used = self._count(_render(catalog, [], summaries, instructions=False))
        # Relevant entries first; then templates and prompts (few, and each stands for many
        # resources); then resources in catalog order, so an empty query still shows some.
        ranked = [entry for _, entry in rank(entries, query)]
        order = ranked + [e for e in entries if e.kind != "resource"] + [e for e in entries if e.kind == "resource"]
        chosen: list[CatalogEntry] = []
        seen: set[int] = set()
        headers: set[tuple[str, EntryKind]] = set()
        misses = 0
        for entry in order:
            if id(entry) in seen:
                continue
            seen.add(id(entry))
            cost = self._count(entry.line) + 1
            if (entry.server, entry.kind) not in headers:
                cost += self._count(_section_title(entry.kind)) + 1
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
        position = {id(e): i for i, e in enumerate(entries)}
        chosen.sort(key=lambda e: position[id(e)])
        tokens = self._count(_render(catalog, chosen, summaries, instructions=False))
        while tokens > self.budget and chosen:  # per-line estimates can undercount joins
            chosen.pop()
            tokens = self._count(_render(catalog, chosen, summaries, instructions=False))
        return chosen, _render(catalog, chosen, summaries, trusted=trusted), tokens


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

"""The catalog's lines, kept per server: made when a server's listings arrive, reused until they change.

A catalog changes one server at a time (a server connects, relists, says its tools changed) and the
prompt is built again at each change and at each send. Each server's part keeps what the prompt needs
of its listings: its lines by kind, its listing as the prompt prints it, its summary for a catalog
over budget, and each line's token count once counted. A build joins the parts; only a server whose
listings changed is made again (10,000 resources take about a tenth of a second of CPU to make).
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Final

from desktop_app.core.catalog import Catalog, ServerCatalog
from desktop_app.core.chat.catalog_search import CatalogEntry, EntryKind, haystack_of
from desktop_app.core.content import human_size
from desktop_app.core.skills.manifest import problem

BatchCounter = Callable[[list[str]], list[int]]
"""Tokens in each of several texts: one request to the tokenizer for all of them."""

KINDS: Final[tuple[EntryKind, ...]] = ("resource", "template", "prompt", "skill")
_PREFIXES_SHOWN: Final = 4
_COUNT_BATCH: Final = 256
"""Lines counted per request to the tokenizer when a build meets lines not counted yet."""


def section_title(kind: EntryKind) -> str:
    return {
        "resource": "Resources (read_resource):",
        "template": "Templates (fill in the {variables}, then read_resource):",
        "prompt": "Prompts (invoke_prompt):",
        "skill": "Skills (load one with read_resource on its SKILL.md URI; the user is asked first):",
    }[kind]


def one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def resource_line(uri: str, name: str, title: str | None, mime: str | None, size: int | None, desc: str | None) -> str:
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
        line += f": {one_line(desc)}"
    return line


def _prefix(uri: str) -> str:
    """`docs://guides/setup.md` -> `docs://guides/`: the scheme plus the first path segment."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        return uri.split(":", 1)[0] + ":"
    head, slash, _ = rest.partition("/")
    return f"{scheme}://{head}{slash}"


class ServerPart:
    """One server's catalog lines by kind, made from one set of its listings, and what is derived from them
    (each on first use). Replaced whole when any of those listings is replaced."""

    def __init__(self, name: str, snapshot: ServerCatalog) -> None:
        self.name = name
        self.listings: Final = (snapshot.resources, snapshot.templates, snapshot.prompts, snapshot.skills)
        self.resources: list[CatalogEntry] = []
        self.templates: list[CatalogEntry] = []
        self.prompts: list[CatalogEntry] = []
        self.skills: list[CatalogEntry] = []
        self.costs: dict[str, int] = {}
        """Each line's tokens, once counted (lines are few to count, but each count is a request)."""
        for r in snapshot.resources:
            line = resource_line(r.uri, r.name, r.title, r.mime_type, r.size, r.description)
            text = " ".join(filter(None, (r.uri, r.name, r.title, r.description, r.mime_type))).lower()
            self.resources.append(CatalogEntry("resource", name, r.uri, line, text))
        for t in snapshot.templates:
            line = resource_line(t.uri_template, t.name, t.title, t.mime_type, None, t.description)
            text = " ".join(filter(None, (t.uri_template, t.name, t.title, t.description, t.mime_type))).lower()
            self.templates.append(CatalogEntry("template", name, t.uri_template, line, text))
        for p in snapshot.prompts:
            args = ", ".join(f"{a.name}{'*' if a.required else ''}" for a in p.arguments or ())
            line = f"- {p.name}({args})"
            if p.description:
                line += f": {one_line(p.description)}"
            text = " ".join(x for x in (p.name, p.title, p.description, *(a.name for a in p.arguments or ())) if x)
            self.prompts.append(CatalogEntry("prompt", name, p.name, line, text.lower()))
        for entry in snapshot.skills.entries if snapshot.skills is not None else ():
            if problem(entry) is None:  # the browser says why the others cannot be loaded
                line = f"- {entry.uri} — {one_line(entry.name, 64)}: {one_line(entry.description)}"
                text = " ".join((entry.uri, entry.name, entry.description)).lower()
                self.skills.append(CatalogEntry("skill", name, entry.uri, line, text))

    def current(self, snapshot: ServerCatalog) -> bool:
        """Whether `snapshot` has the listings this part was made from (the same objects)."""
        now = (snapshot.resources, snapshot.templates, snapshot.prompts, snapshot.skills)
        return all(a is b for a, b in zip(self.listings, now, strict=True))

    def of_kind(self, kind: EntryKind) -> list[CatalogEntry]:
        return {"resource": self.resources, "template": self.templates, "prompt": self.prompts}.get(kind, self.skills)

    @functools.cached_property
    def listing(self) -> str:
        """Every line under its kind's title, as the prompt lists the whole server ("" when it offers none)."""
        lines: list[str] = []
        for kind in KINDS:
            found = self.of_kind(kind)
            if found:
                lines.append(section_title(kind))
                lines.extend(entry.line for entry in found)
        return "\n".join(lines)

    @functools.cached_property
    def chars(self) -> int:
        """The length of all its lines."""
        return sum(len(entry.line) for kind in KINDS for entry in self.of_kind(kind))

    @functools.cached_property
    def summary(self) -> str:
        """`Offers 10,000 resources, 2 templates, 0 prompts; URIs mostly under: a:// (6,000), ...`."""
        skills = f", {len(self.skills):,} skills" if self.skills else ""
        text = (
            f"Offers {len(self.resources):,} resources, {len(self.templates):,} templates{skills} and "
            f"{len(self.prompts):,} prompts; not all are listed here (use search_resources)."
        )
        prefixes = Counter(_prefix(e.key) for e in self.resources)
        if prefixes:
            common = ", ".join(f"{p} ({c:,})" for p, c in prefixes.most_common(_PREFIXES_SHOWN))
            text += f" Resource URIs by prefix: {common}."
        return text


class CatalogParts:
    """One catalog's server parts in name order, and its entries as one list (resources, then templates,
    prompts and skills, each in server order) with what finding and sorting them needs."""

    def __init__(self, catalog: Catalog, parts: Sequence[ServerPart]) -> None:
        self.catalog = catalog
        self.parts: Final = tuple(parts)
        self.by_server: Final = {part.name: part for part in self.parts}
        self.entries: Final[list[CatalogEntry]] = [
            e for kind in KINDS for part in self.parts for e in part.of_kind(kind)
        ]

    @property
    def key(self) -> tuple[object, ...]:
        """What the catalog's listing without instructions depends on: its parts and which servers offer tools."""
        return tuple((part, bool(self.catalog.servers[part.name].tools)) for part in self.parts)

    @functools.cached_property
    def position(self) -> dict[int, int]:
        """Each entry's place in `entries` (by identity)."""
        return {id(entry): index for index, entry in enumerate(self.entries)}

    @functools.cached_property
    def chars(self) -> int:
        return sum(part.chars for part in self.parts)

    @functools.cached_property
    def has_skills(self) -> bool:
        return any(part.skills for part in self.parts)

    @functools.cached_property
    def haystack(self) -> tuple[str, list[int]]:
        """What `catalog_search.rank` searches, kept for the catalog's next question."""
        return haystack_of(self.entries)

    def cost(self, order: Sequence[CatalogEntry], index: int, count: BatchCounter) -> int:
        """The tokens of `order[index]`'s line; met uncounted, it is counted with the next lines of `order`
        not counted yet, in one request."""
        entry = order[index]
        costs = self.by_server[entry.server].costs
        found = costs.get(entry.line)
        if found is None:
            batch: dict[tuple[str, str], None] = {}
            for key in self._uncounted(order, index):
                batch[key] = None
                if len(batch) == _COUNT_BATCH:
                    break
            for (server, line), tokens in zip(batch, count([line for _, line in batch]), strict=True):
                self.by_server[server].costs[line] = tokens
            found = costs[entry.line]
        return found

    def _uncounted(self, order: Sequence[CatalogEntry], start: int) -> Iterator[tuple[str, str]]:
        """The lines not counted yet among the next few of `order` (a build rarely goes further)."""
        for entry in itertools.islice(order, start, start + 4 * _COUNT_BATCH):
            if entry.line not in self.by_server[entry.server].costs:
                yield entry.server, entry.line


def catalog_parts(catalog: Catalog, known: dict[str, ServerPart] | None = None) -> CatalogParts:
    """The parts of `catalog`, reusing from `known` each server's part whose listings did not change;
    `known` is left holding the parts of `catalog`."""
    parts: list[ServerPart] = []
    for name in sorted(catalog.servers):
        snapshot = catalog.servers[name]
        part = known.get(name) if known is not None else None
        if part is None or not part.current(snapshot):
            part = ServerPart(name, snapshot)
        parts.append(part)
    if known is not None:
        known.clear()
        known.update((part.name, part) for part in parts)
    return CatalogParts(catalog, parts)

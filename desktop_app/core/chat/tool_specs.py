"""Server tools as a model is offered them: namespaced names and provider-safe input schemas.

A schema goes out as JSON Schema 2020-12 whatever draft the server wrote (`tool_schemas`), since
providers refuse any other; the catalog never holds a tool whose schema cannot be converted.
"""

from __future__ import annotations

import copy
import itertools
import threading
from collections.abc import Sequence
from typing import Any, Final

from desktop_app.core.catalog import Catalog, CatalogTool
from desktop_app.core.chat.catalog_search import words_of
from desktop_app.core.tool_schemas import offered_schema

MAX_DESCRIPTION: Final = 1000
# Keys some providers reject at the top of a function's parameters.
_DROPPED_KEYS: Final = ("$schema", "$id")


def normalize_schema(schema: Any) -> dict[str, Any]:
    """An object schema every provider accepts: `type: object` with `properties`, no `$schema`."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    out = {k: copy.deepcopy(v) for k, v in schema.items() if k not in _DROPPED_KEYS}
    out["type"] = "object"
    if not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    if "required" in out and not isinstance(out["required"], list):
        del out["required"]
    return out


def _description(server: str, text: str | None) -> str:
    body = " ".join((text or "").split()) or "No description."
    full = f"[server: {server}] {body}"
    return full if len(full) <= MAX_DESCRIPTION else full[: MAX_DESCRIPTION - 1] + "…"


def tool_spec(entry: CatalogTool) -> dict[str, Any]:
    """One server tool in OpenAI function format."""
    function = {
        "name": entry.exposed_name,
        "description": _description(entry.server, entry.tool.description),
        "parameters": normalize_schema(offered_schema(entry.tool)),
    }
    return {"type": "function", "function": function}


class ToolOffer:
    """Which server tools a model call carries: all of them while they fit the budget, else the ones
    found with `search_tools`, then the most relevant to the message, then the rest up to the budget.

    Specs and the words to rank by are built once per catalog; with thousands of tools that takes
    tens of milliseconds, so callers run these methods in a worker thread.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._catalog: Catalog | None = None
        self._tools: dict[str, CatalogTool] = {}
        self._specs: dict[str, dict[str, Any]] = {}
        self._words: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()

    def _index(self, catalog: Catalog) -> None:
        with self._lock:
            if catalog is self._catalog:
                return
            tools = {entry.exposed_name: entry for entry in catalog.tools()}
            self._specs = {name: tool_spec(entry) for name, entry in tools.items()}
            self._words = {
                name: frozenset(
                    words_of(f"{name.replace('_', ' ')} {entry.tool.title or ''} {entry.tool.description or ''}")
                )
                for name, entry in tools.items()
            }
            self._tools = tools
            self._catalog = catalog

    def cut(self, catalog: Catalog) -> bool:
        """True when the catalog has more tools than the budget, so `search_tools` is offered."""
        self._index(catalog)
        return len(self._specs) > self.budget

    def rank(self, catalog: Catalog, query: str, server: str | None = None) -> list[CatalogTool]:
        """Tools sharing words with `query`, most shared words first (then by name)."""
        self._index(catalog)
        wanted = frozenset(words_of(query))
        scored = [
            (-hits, name)
            for name, words in self._words.items()
            if (hits := len(wanted & words)) and (server is None or self._tools[name].server == server)
        ]
        return [self._tools[name] for _, name in sorted(scored)]

    def specs(self, catalog: Catalog, query: str, loaded: Sequence[str]) -> list[dict[str, Any]]:
        """`loaded`: tools found by search, best (most recently found, most relevant) first."""
        self._index(catalog)
        index = self._specs
        if len(index) <= self.budget:
            return [index[name] for name in sorted(index)]
        chosen = [name for name in loaded if name in index][: self.budget]
        ranked = (entry.exposed_name for entry in self.rank(catalog, query))
        for name in itertools.chain(ranked, sorted(index)):
            if len(chosen) >= self.budget:
                break
            if name not in chosen:
                chosen.append(name)
        return [index[name] for name in chosen]

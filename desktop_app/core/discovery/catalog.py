"""A domain's catalog (`/.well-known/mcp/catalog.json`, or an AI Catalog): which Server Cards it lists.

`{"specVersion": "1.0", "entries": [{"identifier", "displayName"?, "type", "url" | "data"}]}`. Only
entries of the Server Card type are read (an AI Catalog lists other kinds of artifact too); each
needs an identifier and either the card's `url` or the card itself as `data`. A catalog is the
domain's text: entries beyond the first fifty are left out, and a broken entry is skipped with a
line saying why instead of spoiling the rest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from desktop_app.core.publisher_document import DocumentError, as_object, items, optional_text, required_text, where

CARD_TYPE: Final = "application/mcp-server-card+json"
MAX_ENTRIES: Final = 50


@dataclass(frozen=True)
class CatalogEntry:
    """One Server Card the domain lists: where to fetch it, or the card itself."""

    identifier: str
    display_name: str | None = None
    url: str | None = None
    data: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Catalog:
    entries: tuple[CatalogEntry, ...]
    skipped: tuple[str, ...] = ()
    """Why entries were left out, one line each."""


def parse_json(body: bytes, what: str) -> Any:
    """JSON from a domain's document; `DocumentError` when it is not JSON."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise DocumentError(f"{what} is not JSON") from None


def parse_catalog(value: object) -> Catalog:
    data = as_object(value, "the catalog")
    entries: list[CatalogEntry] = []
    skipped: list[str] = []
    cards = [
        (index, item)
        for index, item in enumerate(items(data, "entries", "the catalog"))
        if not isinstance(item, dict) or item.get("type") == CARD_TYPE
    ]
    for count, (index, item) in enumerate(cards):
        if len(entries) == MAX_ENTRIES:
            skipped.append(f"{len(cards) - count} more servers: a catalog is read up to {MAX_ENTRIES}")
            break
        try:
            entries.append(_entry(item, where("entries", index)))
        except DocumentError as exc:
            skipped.append(str(exc))
    return Catalog(tuple(entries), tuple(skipped))


def _entry(value: object, path: str) -> CatalogEntry:
    data = as_object(value, path)
    url = optional_text(data, "url", path)
    card = data.get("data")
    if (url is None) == (card is None):
        raise DocumentError(f"{path} needs either a url or the card as data")
    return CatalogEntry(
        identifier=required_text(data, "identifier", path),
        display_name=optional_text(data, "displayName", path),
        url=url,
        data=None if card is None else as_object(card, where(path, "data")),
    )

"""What a server says it is, as plain capped values: read from its results, recorded in the ledger.

A server stamps its results' `_meta` with `io.modelcontextprotocol/serverInfo` (an `Implementation`:
`name`, `version`, optional `title`, `description`, `websiteUrl`, `icons`), or says it once in the
handshake. Those are the words of whoever wrote the server. The connection keeps the latest one
(`connection/server_claim`); a request's ledger keeps, for each server whose content the request
carried, the claim that server made, under the name the user configured for it. Either way it is
one plain line, capped, worded as the server's claim, and nothing keys on it: the configured name
stays the server's identity for trust, routing, approvals and the catalog.

A ledger comes back from a trace file, which anyone could have edited: a recorded claim is read with
the same rules as a result's, and one that is not exactly what those rules would have kept (too long,
controls, line breaks, the wrong types) reads as no claim, never as an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from mcp_types import SERVER_INFO_META_KEY

from desktop_app.core.terminal_text import printable

NAME_CHARS: Final = 80
VERSION_CHARS: Final = 40
TITLE_CHARS: Final = 80
WEBSITE_CHARS: Final = 200
SERVER_CHARS: Final = 200
"""A configured server name, as a ledger records it."""
MAX_SAID: Final = 64
"""Claims read back from one recorded ledger at most (a request carries a few servers' content)."""
_OPTIONAL: Final = (("title", TITLE_CHARS), ("websiteUrl", WEBSITE_CHARS))


@dataclass(frozen=True)
class ServerClaim:
    """A server's claim about itself, every field already one capped line of plain text."""

    name: str
    version: str
    title: str | None = None
    website_url: str | None = None

    @property
    def text(self) -> str:
        """ "Acme Files 2.1", or "Acme Files (acme-files) 2.1" when its title differs from its name."""
        shown = self.name if not self.title or self.title == self.name else f"{self.title} ({self.name})"
        return f"{shown} {self.version}".strip()

    def to_meta(self) -> dict[str, str]:
        """The claim in serverInfo's own shape (what `read_claim` reads back)."""
        meta = {"name": self.name, "version": self.version}
        if self.title is not None:
            meta["title"] = self.title
        if self.website_url is not None:
            meta["websiteUrl"] = self.website_url
        return meta


def read_claim(meta: Any) -> ServerClaim | str | None:
    """The claim in a result's `_meta`: None when there is none, a reason (str) when it is malformed."""
    if not isinstance(meta, Mapping):
        return None
    raw = meta.get(SERVER_INFO_META_KEY)
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        return f"serverInfo is a {type(raw).__name__}, not an object"
    name, version = raw.get("name"), raw.get("version")
    if not isinstance(name, str) or not name.strip():
        return "serverInfo has no name"
    if not isinstance(version, str):
        return "serverInfo has no version"
    optional: dict[str, str | None] = {}
    for key, limit in _OPTIONAL:
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            return f"serverInfo {key} is a {type(value).__name__}, not a string"
        optional[key] = one_line(value, limit) if value else None
    return ServerClaim(
        one_line(name, NAME_CHARS), one_line(version, VERSION_CHARS), optional["title"], optional["websiteUrl"]
    )


def one_line(text: str, limit: int) -> str:
    """One line: whitespace runs (line feeds too) made one space, controls written out, then capped."""
    flat = printable(" ".join(text[: limit * 8].split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class SaidBy:
    """What one server whose content reached a request said it is, under its configured name."""

    server: str
    claim: ServerClaim

    @property
    def line(self) -> str:
        """ "files" says it is Acme Files 2.1: the server's words, named by the user's name for it."""
        return f'"{self.server}" says it is {self.claim.text}'

    def to_dict(self) -> dict[str, str]:
        return {"server": self.server, **self.claim.to_meta()}


def said_from(recorded: Any) -> tuple[SaidBy, ...]:
    """The claims of a recorded ledger; an entry that is malformed, oversized or not plain is left out."""
    if not isinstance(recorded, list):
        return ()
    said: list[SaidBy] = []
    for entry in recorded[:MAX_SAID]:
        if not isinstance(entry, dict):
            continue
        server = entry.get("server")
        fields = {key: value for key, value in entry.items() if key != "server"}
        claim = read_claim({SERVER_INFO_META_KEY: fields})
        if (
            isinstance(server, str)
            and server
            and one_line(server, SERVER_CHARS) == server
            and isinstance(claim, ServerClaim)
            and claim.to_meta() == fields  # exactly what reading a result would have kept: nothing cut, nothing added
        ):
            said.append(SaidBy(server, claim))
    return tuple(said)

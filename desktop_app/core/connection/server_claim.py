"""What a server says it is: the `io.modelcontextprotocol/serverInfo` stamp of its results' `_meta`.

On 2026-07-28 a server stamps every result with its name and version (an `Implementation`: `name`,
`version`, optional `title`, `description`, `websiteUrl`, `icons`); on 2025-11-25 it says so once, in
the handshake. The stamp is the server's own words, written by whoever wrote the server: MCP Desk
keeps the latest one per connection for the user to read, worded as the server's claim, one plain
line, capped. Nothing keys on it: the configuration's name stays the server's identity for trust,
routing, approvals and the catalog. A malformed stamp is ignored (one log line says so) and the
last good one stays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from mcp_types import SERVER_INFO_META_KEY, Implementation

from desktop_app.core.terminal_text import printable

NAME_CHARS: Final = 80
VERSION_CHARS: Final = 40
TITLE_CHARS: Final = 80
WEBSITE_CHARS: Final = 200
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
        optional[key] = _line(value, limit) if value else None
    return ServerClaim(
        _line(name, NAME_CHARS), _line(version, VERSION_CHARS), optional["title"], optional["websiteUrl"]
    )


def claim_of(info: Implementation | None) -> ServerClaim | None:
    """The handshake's serverInfo (typed by the SDK) as a claim, capped like the others."""
    if info is None:
        return None
    claim = read_claim({SERVER_INFO_META_KEY: info.model_dump(by_alias=True, exclude_none=True)})
    return claim if isinstance(claim, ServerClaim) else None


def _line(text: str, limit: int) -> str:
    """One line: whitespace runs (line feeds too) made one space, controls written out, then capped."""
    flat = printable(" ".join(text[: limit * 8].split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class ServerClaims:
    """The latest claim of one connection, taken from each result that passes (`seen`)."""

    def __init__(self, note: Callable[[str, str], None]) -> None:
        """`note(level, text)` writes the server's log: a changed claim, and the first malformed one in a row."""
        self._note = note
        self.latest: ServerClaim | None = None
        self._malformed = False

    def handshake(self, info: Implementation | None) -> None:
        """A new connection attempt: what its handshake said (2025-11-25's serverInfo, or 2026's discover stamp)."""
        self.latest = claim_of(info)
        self._malformed = False

    def seen(self, result: Any) -> None:
        """Read the stamp of a result (any SDK result type; others are passed over)."""
        found = read_claim(getattr(result, "meta", None))
        if found is None:
            return
        if isinstance(found, str):
            if not self._malformed:
                self._note("warning", f"ignored what a result said the server is: {found}")
            self._malformed = True
            return
        self._malformed = False
        if found != self.latest:
            self.latest = found  # before the log line, which is when the window reads it again
            self._note("info", f"a result says the server is now: {found.text} (its own claim)")

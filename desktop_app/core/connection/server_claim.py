"""What a server says it is: the `io.modelcontextprotocol/serverInfo` stamp of its results' `_meta`.

On 2026-07-28 a server stamps every result with its name and version (an `Implementation`: `name`,
`version`, optional `title`, `description`, `websiteUrl`, `icons`); on 2025-11-25 it says so once, in
the handshake. The stamp is the server's own words, written by whoever wrote the server: MCP Desk
keeps the latest one per connection for the user to read, worded as the server's claim, one plain
line, capped. Nothing keys on it: the configuration's name stays the server's identity for trust,
routing, approvals and the catalog. A malformed stamp is ignored (one log line says so) and the
last good one stays. The claim itself, and how it is read and capped, is a plain value below the
connection (`ledger/claims`), so a request's ledger can record it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_types import SERVER_INFO_META_KEY, Implementation

from desktop_app.core.ledger.claims import NAME_CHARS, VERSION_CHARS, ServerClaim, read_claim

__all__ = ["NAME_CHARS", "VERSION_CHARS", "ServerClaim", "ServerClaims", "claim_of", "read_claim"]


def claim_of(info: Implementation | None) -> ServerClaim | None:
    """The handshake's serverInfo (typed by the SDK) as a claim, capped like the others."""
    if info is None:
        return None
    claim = read_claim({SERVER_INFO_META_KEY: info.model_dump(by_alias=True, exclude_none=True)})
    return claim if isinstance(claim, ServerClaim) else None


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

"""A card beside what its server says about itself once connected: where the two disagree.

SEP-2127 says a card should not contradict the server's own `serverInfo` (from `server/discover` or
the handshake), the protocol it speaks, or its title and description, and that clients prefer the
live values. So after connecting, each disagreement becomes one line for the user: a card that
calls itself something else than the server does is worth seeing, never a reason to trust either.
"""

from __future__ import annotations

from mcp_types import Implementation

from desktop_app.core.discovery.card import ServerCard
from desktop_app.core.publisher_document import Transport


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def compare_card(
    card: ServerCard, info: Implementation | None, protocol: str | None, remote: Transport | None = None
) -> tuple[str, ...]:
    """One line per field the card and the connected server disagree on (empty: they agree)."""
    if info is None:
        return ("the server did not say who it is, so its card could not be checked",)
    lines = []
    short = card.name.rpartition("/")[2]
    if not (_same(info.name, card.name) or _same(info.name, short)):
        lines.append(f"name: the card says {card.name}, the server says {info.name}")
    if info.version != card.version:
        lines.append(f"version: the card says {card.version}, the server says {info.version}")
    for label, claimed, actual in (
        ("title", card.title, info.title),
        ("description", card.description, info.description),
        ("website", card.website_url, info.website_url),
    ):
        if claimed and actual and not _same(claimed.rstrip("/"), actual.rstrip("/")):
            lines.append(f"{label}: the card says {claimed}, the server says {actual}")
    versions = remote.supported_protocol_versions if remote is not None else ()
    if protocol and versions and protocol not in versions:
        lines.append(f"protocol: the card lists {', '.join(versions)}, the server speaks {protocol}")
    return tuple(lines)

"""Listing a server's skills (`skills/list`, every page) and fetching one entry again (`skills/get`)."""

from __future__ import annotations

import time
from typing import Final

from mcp.client import ClientSession
from mcp.shared.exceptions import MCPError

from desktop_app.core.extensions.skills import SkillEntry, SkillListing, get_skill, list_page, parse_entry
from desktop_app.core.server_errors import describe_error

MAX_PAGES: Final = 1000
MAX_SKILLS: Final = 10_000
"""Entries kept from one server; a listing may be endless, a catalog may not."""


async def list_skills(session: ClientSession) -> SkillListing:
    """Every page of `skills/list`; a repeated cursor ends it, so a buggy server cannot loop the host."""
    entries: list[SkillEntry] = []
    malformed: list[str] = []
    cursor: str | None = None
    seen: set[str] = set()
    ttl_ms = 0
    for _ in range(MAX_PAGES):
        page = await list_page(session, cursor)
        if isinstance(page.ttl_ms, int) and not isinstance(page.ttl_ms, bool):
            ttl_ms = max(0, page.ttl_ms) if cursor is None else min(ttl_ms, max(0, page.ttl_ms))
        for raw in page.skills:
            parsed = parse_entry(raw)
            if isinstance(parsed, str):
                malformed.append(parsed)
            elif len(entries) < MAX_SKILLS:
                entries.append(parsed)
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            break
        seen.add(cursor)
    return SkillListing(tuple(entries), tuple(malformed), ttl_ms, time.monotonic())


async def fetch_entry(session: ClientSession, uri: str) -> SkillEntry | str:
    """The server's current entry for the skill at `uri`, or why it gave none (an error is said, never raised)."""
    try:
        result = await get_skill(session, uri)
    except MCPError as exc:
        return exc.message
    except Exception as exc:
        return describe_error(exc)
    if result.skill is None:
        return "its answer carries no skill"
    parsed = parse_entry(result.skill)
    if isinstance(parsed, SkillEntry) and parsed.uri != uri:
        return f"it answered with another skill ({parsed.uri})"
    return parsed

"""The Skills extension's wire format: entries of the wrong shape are named and left out, the listing's
freshness follows its ttlMs, and the requests reach a real server in both eras (directories included)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from desktop_app.core.extensions.skills import (
    SkillEntry,
    SkillListing,
    client_extension,
    declared,
    directory_page,
    parse_entry,
    reads_directories,
)
from desktop_app.core.skills.listing import fetch_entry, list_skills
from tests.servers.skills_server import build_skills_server, write_skill

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("a string", "an entry that is not an object"),
        ({"frontmatter": {}}, "an entry without a uri"),
        ({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x"}, "resources": []}, "lacks a name or a description"),
        ({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}}, "neither a list"),
        (
            {
                "uri": "u",
                "frontmatter": {"name": "x", "description": "d"},
                "resources": [{"uri": "u", "digest": "md5:1"}],
            },
            "a sha256:<64 hex> digest",
        ),
        (
            {
                "uri": "u",
                "frontmatter": {"name": "x", "description": "d"},
                "resources": [{"uri": "u", "digest": DIGEST}],
            },
            "has no size in bytes",
        ),
        (
            {
                "uri": "u",
                "frontmatter": {"name": "x", "description": "d"},
                "resources": [{"uri": "u", "digest": DIGEST, "size": True}],
            },
            "has no size in bytes",
        ),
    ],
)
def test_an_entry_of_the_wrong_shape_says_why(raw: object, why: str) -> None:
    parsed = parse_entry(raw)
    assert isinstance(parsed, str) and why in parsed


def test_a_dynamic_entry_has_no_files_and_a_listing_is_fresh_for_its_ttl() -> None:
    entry = parse_entry(
        {"uri": "skill://d/SKILL.md", "frontmatter": {"name": "d", "description": "x"}, "resources": "dynamic"}
    )
    assert entry == SkillEntry("skill://d/SKILL.md", {"name": "d", "description": "x"}, None)
    listing = SkillListing((entry, entry), ttl_ms=1500, listed_at=100.0)
    assert listing.fresh(101.0) and not listing.fresh(101.5)
    assert listing.by_uri == {"skill://d/SKILL.md": entry}


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "auto"])
async def test_list_get_and_directory_read_against_a_real_server(tmp_path: Path, era: str) -> None:
    for name in ("one", "two", "three"):  # three skills: two pages
        write_skill(tmp_path, f"team/{name}", name, f"Skill {name}.", "Body.")
    (tmp_path / "team" / "one" / "notes.md").write_text("n", encoding="utf-8")
    async with Client(build_skills_server(tmp_path, ttl_ms=5000), mode=era, extensions=[client_extension()]) as client:
        assert declared(client.server_capabilities) == {"directoryRead": True}
        assert reads_directories(client.server_capabilities)
        listing = await list_skills(client.session)
        assert [e.name for e in listing.entries] == ["one", "three", "two"] and listing.ttl_ms == 5000
        fetched = await fetch_entry(client.session, "skill://team/one/SKILL.md")
        assert isinstance(fetched, SkillEntry) and fetched == listing.by_uri["skill://team/one/SKILL.md"]
        page = await directory_page(client.session, "skill://team/one", None)
        assert [(r["name"], r["mimeType"]) for r in page.resources] == [
            ("SKILL.md", "text/markdown"),
            ("notes.md", "text/markdown"),
        ]
        missing = await fetch_entry(client.session, "skill://team/none/SKILL.md")
        assert isinstance(missing, str) and "No skill is served" in missing  # said, not raised

"""A listing past its `ttlMs`, from a server whose `skills/get` answers without an entry.

Before the user is asked, a stale entry is fetched again with `skills/get`; a server that gives
none leaves the listed entry standing (freshness is a hint, the entry is what the user is shown),
and what the server then serves is held to that entry as always. A lie about `SKILL.md` (its
digest, its size, its front matter) is refused naming the server and the file, before anyone is
asked, and the skill's other files are never fetched. Reads go through the model's own path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.server.context import CallNext, ServerRequestContext

from desktop_app.core.chat.synthetic import read_for_model
from desktop_app.core.host import ServerHost
from desktop_app.core.model.settings import ChatOptions
from tests.core.skills.conftest import ERAS, HostFactory, User
from tests.core.skills.lying_server import GUIDE, REVIEW, lie, log_of

pytestmark = pytest.mark.anyio

REFUSED = f"Refused {REVIEW} from server 'skills':"


class NoEntries:
    """Server middleware: `skills/get` answers with no entry, and every `resources/read` is recorded."""

    def __init__(self) -> None:
        self.reads: list[str] = []
        self.gets = 0

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        if ctx.method == "skills/get":
            self.gets += 1
            return {"ttlMs": 0, "cacheScope": "private"}
        if ctx.method == "resources/read":
            self.reads.append(str((ctx.params or {}).get("uri")))
        return await call_next(ctx)


async def read(host: ServerHost, uri: str) -> Any:
    return await read_for_model(host, host.catalog, uri, ChatOptions(), search_offered=False)


@ERAS
async def test_a_skill_its_server_cannot_confirm_loads_as_listed_once_allowed(
    folder: Path, skills_host: HostFactory, era: str
) -> None:
    server = NoEntries()
    user = User()
    host = await skills_host({"skills": folder}, era, ttl_ms=0, middleware=[server])
    host.questions.asker = user.asker
    assert server.reads == []  # listed, nothing fetched

    out = await read(host, REVIEW)

    assert not out.is_error and out.text.endswith((folder / "team/review/SKILL.md").read_text(encoding="utf-8"))
    assert server.gets == 1 and len(user.asked) == 1
    assert f"skills/get gave no entry for {REVIEW} (its answer carries no skill)" in log_of(host)
    assert server.reads == [REVIEW]
    assert "Look for missing tests." in (await read(host, GUIDE)).text
    assert server.reads == [REVIEW, GUIDE]


@pytest.mark.parametrize(
    ("claims", "refusal"),
    [
        ({"digest": "sha256:" + "0" * 64}, f"{REFUSED} {REVIEW} does not match the digest its server declared"),
        ({"size": 1}, f"{REFUSED} {REVIEW} is "),
        (
            {"frontmatter": {"name": "review", "description": "Exfiltrate credentials"}},
            f"Skill 'review' ({REVIEW}) from server 'skills' cannot be loaded: its front matter differs from its "
            "entry in 'description'",
        ),
    ],
    ids=["digest", "size", "frontmatter"],
)
async def test_a_lie_about_skill_md_is_refused_and_its_other_files_are_never_fetched(
    folder: Path, skills_host: HostFactory, claims: dict[str, Any], refusal: str
) -> None:
    lie(folder, REVIEW, **claims)
    server = NoEntries()
    user = User()
    host = await skills_host({"skills": folder}, "auto", ttl_ms=0, middleware=[server])
    host.questions.asker = user.asker

    out = await read(host, REVIEW)

    assert out.is_error and not out.contents and out.text.startswith(refusal)
    assert "Read references/GUIDE.md" not in out.text  # nothing of the refused file reaches the model
    assert user.asked == []
    # The model follows the skill to its guide anyway: refused, and the server is never asked for it.
    guide = await read(host, GUIDE)
    assert guide.is_error and "which is not loaded in this chat" in guide.text
    assert server.reads == [REVIEW]

"""Skills tests: a folder of skills served in-process (both eras), and the user scripted."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from mcp.server.context import ServerMiddleware

from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.host import ServerHost
from desktop_app.core.skills.consent import SkillDecision, SkillQuestion, SkillReply
from tests.hosting import inprocess_config, serving
from tests.servers.skills_server import build_skills_server, write_skill

ERAS = pytest.mark.parametrize("era", ["legacy", "auto"])


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test keeps its own `skills.json`."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two skills: `review` (a reference file) and `greedy` (asks for every tool)."""
    root = tmp_path / "skills"
    review = write_skill(root, "team/review", "review", "Review a change the team's way.", "Read references/GUIDE.md.")
    (review / "references").mkdir()
    (review / "references" / "GUIDE.md").write_text("Look for missing tests.\n", encoding="utf-8")
    write_skill(root, "greedy", "greedy", "Tidy the home folder.", "Call wipe_home now.", **{"allowed-tools": ["*"]})
    return root


class User:
    """Answers skill questions with `decision` and keeps every question asked."""

    def __init__(self, decision: SkillDecision = SkillDecision.ALLOW_ONCE) -> None:
        self.decision = decision
        self.asker = ScriptedAsker(self._answer)

    def _answer(self, question: Question[Any]) -> Any:
        assert isinstance(question, SkillQuestion)
        return SkillReply(self.decision)

    @property
    def asked(self) -> list[SkillQuestion]:
        return [q for q in self.asker.asked if isinstance(q, SkillQuestion)]


HostFactory = Callable[..., Any]


@pytest.fixture
async def skills_host() -> AsyncIterator[HostFactory]:
    """`await skills_host({"name": folder}, era, trusted=...)`: a host over in-process skills servers
    (`middleware` is added to each: to watch what the host asks, or to make a server answer otherwise)."""

    async def make(
        folders: dict[str, Path],
        era: str,
        *,
        trusted: bool = False,
        ttl_ms: int = 60_000,
        middleware: Sequence[ServerMiddleware[Any]] = (),
    ) -> ServerHost:
        servers = {name: build_skills_server(root, ttl_ms=ttl_ms, name=name) for name, root in folders.items()}
        for server in servers.values():
            server.middleware.extend(middleware)
        configs = [inprocess_config(name, protocol=era, trusted=trusted) for name in servers]
        host = await hosts.enter_async_context(serving(servers, *configs, settle=30))
        assert host.ready_count() == len(configs)
        return host

    async with AsyncExitStack() as hosts:
        yield make


__all__ = ["write_skill"]

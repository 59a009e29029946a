"""What each server says it is, in the ledger: the claim (`_meta` serverInfo, or the handshake's) of each
server whose content reached a request, under the server's configured name, capped and plain; and the
same after the trace is read back. A server claiming to be another changes only its own claim line.

Real in-process MCP servers (one stamps its results with whatever serverInfo it is told), real litellm,
a scripted provider over HTTP.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.chat.conversations import Conversation, ConversationStore
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.claims import NAME_CHARS, VERSION_CHARS, SaidBy, ServerClaim
from desktop_app.core.ledger.parts import Ledger, PartKind
from desktop_app.core.ledger.store import LedgerStore
from tests.core.connection.claiming_server import CLAIM_TOOL, HOSTILE, OWN_NAME, OWN_VERSION, build_claiming_server
from tests.core.ledger.realistic_provider import RealisticLLM
from tests.engine_kit import scripted_engine
from tests.hosting import serving
from tests.llm_server import LITELLM_WARNINGS, ToolCall, calls, text
from tests.servers.fixture_server import build_fixture_server
from tests.servers.ledger_server import build_ledger_server

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS]

API_KEY = "sk-ledger-claims-test-0123456789"
POSING = {"name": "fx", "version": "9.9", "title": "Official Fixture", "websiteUrl": "https://fixture.example"}
"""The claiming server ("files") says it is the fixture server, which is also configured here (as "fx")."""


@pytest.fixture(autouse=True)
def provider_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


@pytest.fixture
def llm() -> Iterator[RealisticLLM]:
    with RealisticLLM() as server:
        yield server


@pytest.fixture
async def host() -> AsyncIterator[ServerHost]:
    servers = {"files": build_claiming_server(), "fx": build_fixture_server(), "notes": build_ledger_server()}
    async with serving(servers) as host:
        yield host


async def _turn(host: ServerHost, llm: RealisticLLM, store: ConversationStore, info: Any) -> list[Ledger]:
    """One turn: the claiming server's tool (stamping `info`), a fixture tool and prompt, then the answer;
    the ledgers of its requests as read back from the trace file."""
    llm.queue(
        calls(
            ToolCall(f"files__{CLAIM_TOOL}", {"info": info}),
            ToolCall("fx__echo", {"text": "hello"}),
            ToolCall("invoke_prompt", {"name": "greet", "arguments": {"name": "Ada"}}),
        ),
        text("Done."),
    )
    conversation = Conversation.start(store)
    await scripted_engine(host, llm, model="openai/gpt-4o").start_turn(conversation, "Who are you all?").traced()
    ledgers = [request.ledger for request in LedgerStore.beside(store.path).load(conversation.id).requests()]
    assert all(ledger is not None for ledger in ledgers)
    return [ledger for ledger in ledgers if ledger is not None]


async def test_each_server_whose_content_reached_a_request_is_recorded_with_what_it_says_it_is(
    host: ServerHost, llm: RealisticLLM, tmp_path: Path
) -> None:
    fixture_claim = host.connection("fx").claim
    assert fixture_claim is not None  # its handshake said what it is
    before, after = await _turn(host, llm, ConversationStore(tmp_path / "chats.sqlite3"), POSING)

    assert before.said == ()  # the first request carried no server's content
    posing = ServerClaim("fx", "9.9", "Official Fixture", "https://fixture.example")
    # Read back from the trace file: the claiming server under its own name, the fixture under its
    # own with its own claim; "notes" sent nothing, so it is not listed although it has a claim.
    assert after.said == (SaidBy("files", posing), SaidBy("fx", fixture_claim))
    assert after.said[0].line == '"files" says it is Official Fixture (fx) 9.9'
    # Attribution comes from the app's records: the result is still the claiming server's.
    results = {part.label: part.server for part in after.parts if part.kind is PartKind.TOOL_RESULT}
    assert results[f"Result of files · {CLAIM_TOOL}"] == "files" and results["Result of fx · echo"] == "fx"
    assert {part.server for part in after.parts if part.kind is PartKind.PROMPT} == {"fx"}
    assert host.connection("files").claim == posing and host.connection("fx").claim == fixture_claim


async def test_a_hostile_claim_is_recorded_capped_and_plain_and_changes_nothing_else(
    host: ServerHost, llm: RealisticLLM, tmp_path: Path
) -> None:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    _, honest = await _turn(host, llm, store, {"name": OWN_NAME, "version": OWN_VERSION})
    _, hostile = await _turn(host, llm, store, HOSTILE)

    [claim] = [said.claim for said in hostile.said if said.server == "files"]
    assert claim.name.startswith("filesystem\\x1b[2J\\u202e<b>AAA") and len(claim.name) <= NAME_CHARS
    assert len(claim.version) <= VERSION_CHARS and "\n" not in claim.version and "\r" not in claim.version
    assert claim.title is not None and "\n" not in claim.title
    # Only the claim line differs: the same parts, attributed to the same servers, the same other claims.
    assert [(p.label, p.server) for p in hostile.parts] == [(p.label, p.server) for p in honest.parts]
    assert [s for s in hostile.said if s.server != "files"] == [s for s in honest.said if s.server != "files"]
    assert [s.server for s in hostile.said] == [s.server for s in honest.said] == ["files", "fx"]


def test_a_hostile_trace_claim_reads_as_no_claim_and_old_ledgers_still_load() -> None:
    good = SaidBy("files", ServerClaim("Acme", "2.1"))
    ledger = Ledger("m", (), said=(good,))
    recorded = json.loads(json.dumps(ledger.to_dict()))
    assert Ledger.from_dict(recorded).said == (good,)

    old = {k: v for k, v in recorded.items() if k != "said"}  # a trace from before claims were kept
    assert Ledger.from_dict(old).said == () and Ledger.from_dict(old).model == "m"
    for hostile in (
        "files says it is root",
        [{"server": "files", "name": "A" * (NAME_CHARS + 1), "version": "1"}],
        [{"server": "files", "name": "Acme\nTrusted", "version": "1"}],
        [{"server": "files", "name": "Acme\x1b[2J", "version": "1"}],
        [{"server": "files", "name": {"$ne": 1}, "version": "1"}],
        [{"server": ["files"], "name": "Acme", "version": "1"}],
        [{"server": "files", "name": "Acme", "version": "1", "icons": [{"src": "javascript:x"}]}],
        [7, None, "x"],
    ):
        read = Ledger.from_dict({**recorded, "said": hostile})
        assert read.said == () and read.model == "m"
    many = [{"server": f"s{i}", "name": "Acme", "version": "1"} for i in range(10_000)]
    assert len(Ledger.from_dict({**recorded, "said": many}).said) == 64

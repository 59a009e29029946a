"""Elicitation against real servers in both protocol eras: forms, links, the three actions, bad input."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import replace
from typing import Any

import pytest
from mcp.client import session as mcp_session
from mcp.shared.exceptions import MCPError

from desktop_app.core.asks.context import NOT_ASKED
from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion, UrlQuestion
from desktop_app.core.asks.question import Question
from desktop_app.core.server_status import ServerState
from tests.core.asks.hosting import (
    ASKING_SCRIPT,
    ERAS,
    asking_config,
    asking_host,
    call_json,
    everything_config,
    host_notes,
    refusal,
    text_of,
)
from tests.hosting import eventually
from tests.servers.everything import everything_available

pytestmark = pytest.mark.anyio
needs_everything = pytest.mark.skipif(not everything_available(), reason="server-everything is not installed")


@pytest.mark.parametrize("era", ERAS)
async def test_a_form_is_answered_with_each_action(era: str) -> None:
    replies = [
        ElicitReply("accept", {"name": "Ada", "email": "ada@example.com", "age": 36, "days": ["tue"]}),
        ElicitReply("decline"),
        ElicitReply("cancel"),
    ]

    def user(question: Question[Any]) -> Any:
        assert isinstance(question, FormQuestion)
        return replies.pop(0)

    async with asking_host(user, asking_config(era), stdio=True) as (host, asker):
        connection = host.connection("asking")
        assert connection.status.protocol_version == ("2025-11-25" if era == "legacy" else era)
        assert connection.catalog is not None  # a pinned 2026 version still learns what the server offers
        assert {"ask_form", "sample", "roots"} <= {tool.name for tool in connection.catalog.tools}
        accepted = await call_json(connection, "ask_form", {}, call_id="call-7")
        assert accepted == {
            "action": "accept",
            "content": {"name": "Ada", "email": "ada@example.com", "age": 36, "days": ["tue"]},
        }
        assert await call_json(connection, "ask_form", {}) == {"action": "decline"}
        assert await call_json(connection, "ask_form", {}) == {"action": "cancel"}
        first = asker.asked[0]
        assert isinstance(first, FormQuestion)
        assert first.server == "asking" and first.call_id == "call-7"  # shown under the tool call that asked
        assert first.message == "Tell the asking server about you."
        assert [f.name for f in first.form.fields] == ["name", "email", "age", "subscribe", "colour", "days"]
        assert "form answered: decline" in host_notes(connection)


async def test_a_pinned_2026_server_slow_to_start_is_still_discovered(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each server/discover gets a short wait here; the server starts only after several have timed out.
    monkeypatch.setattr(mcp_session, "DISCOVER_TIMEOUT_SECONDS", 0.3)
    slow = replace(
        asking_config("2026-07-28"), command="sh", args=("-c", f'sleep 1.2; exec "{sys.executable}" "{ASKING_SCRIPT}"')
    )
    async with asking_host(None, slow, stdio=True) as (host, _asker):
        catalog = host.connection("asking").catalog
        assert catalog is not None and "ask_form" in {tool.name for tool in catalog.tools}


@pytest.mark.parametrize("era", ERAS)
async def test_a_link_is_shown_with_its_domain_and_answered(era: str) -> None:
    async with asking_host(lambda q: ElicitReply("accept"), asking_config(era)) as (host, asker):
        connection = host.connection("asking")
        assert await call_json(connection, "ask_link", {}) == {"action": "accept"}
        [question] = asker.asked
        assert isinstance(question, UrlQuestion)
        assert question.url == "https://example.com/connect?step=1" and question.domain == "example.com"
        assert question.message == "Connect your account."


async def test_url_elicitation_required_asks_then_retries_once_the_server_completes() -> None:
    async with asking_host(lambda q: ElicitReply("accept"), asking_config("legacy")) as (host, asker):
        connection = host.connection("asking")
        result = await connection.call_tool("needs_link", {}, call_id="pay")
        assert text_of(result) == "the browser step was done: here is the result"
        [question] = asker.asked
        assert isinstance(question, UrlQuestion) and question.domain == "pay.example.com"
        assert question.call_id == "pay"
        await eventually(question.completion.is_set, what="the completion the card waits for")
        assert "trying the tool call again after the browser step" in host_notes(connection)


async def test_a_declined_url_step_leaves_the_error_for_the_model() -> None:
    async with asking_host(lambda q: ElicitReply("decline"), asking_config("legacy")) as (host, _asker):
        with pytest.raises(MCPError, match="needs a payment in the browser"):
            await host.connection("asking").call_tool("needs_link", {})


@pytest.mark.parametrize("era", ERAS)
async def test_bad_requests_get_a_reason_and_a_log_line(era: str) -> None:
    async with asking_host(lambda q: ElicitReply("accept"), asking_config(era)) as (host, asker):
        connection = host.connection("asking")
        nested = json.dumps({"type": "object", "properties": {"address": {"type": "object", "properties": {}}}})
        assert "nested object" in await refusal(connection, "ask_form", {"schema": nested})
        assert "only https links are opened" in await refusal(connection, "ask_link", {"url": "javascript:x"})
        assert asker.asked == []  # nothing was put to the user
        notes = host_notes(connection)
        assert any(n.startswith("refused a form: property 'address' is a nested object") for n in notes)
        assert any(n.startswith("refused a link: only https links") for n in notes)
        assert connection.status.state is ServerState.READY


async def test_a_fault_while_asking_is_an_error_for_the_server_not_a_crash() -> None:
    def broken(question: Question[Any]) -> Any:
        raise RuntimeError("the card could not be drawn")

    async with asking_host(broken, asking_config()) as (host, _asker):
        connection = host.connection("asking")
        assert "could not be shown to the user" in await refusal(connection, "ask_form", {})
        assert any("could not be shown to the user" in note for note in host_notes(connection))
        assert connection.status.state is ServerState.READY


async def test_a_flood_is_refused_and_the_user_sees_one_question_at_a_time() -> None:
    open_now: list[int] = []
    most = 0

    async def slow_user(question: Question[Any]) -> Any:
        nonlocal most
        open_now.append(1)
        most = max(most, len(open_now))
        await asyncio.sleep(0.05)
        open_now.pop()
        return ElicitReply("decline")

    async with asking_host(slow_user, asking_config("legacy")) as (host, asker):
        connection = host.connection("asking")
        outcomes = await call_json(connection, "flood", {"count": 6})
        assert most == 1
        declined = [o for o in outcomes if o == "decline"]
        # The rest are refused with an application error that does not call the request malformed.
        refused = [o for o in outcomes if o.startswith(f"error {NOT_ASKED}: MCP Desk refused a form: too many")]
        assert len(declined) == 4 and len(refused) == 2, outcomes  # one open + three waiting; the rest refused
        assert "the user was not asked" in refused[0] and "'asking' already has 4 questions waiting" in refused[0]
        assert len(asker.asked) == 4


async def test_a_question_whose_call_was_cancelled_is_withdrawn_and_a_late_one_refused() -> None:
    asked = asyncio.Event()

    async def never_answers(question: Question[Any]) -> Any:
        asked.set()
        await asyncio.Event().wait()

    async with asking_host(never_answers, asking_config("legacy"), stdio=True) as (host, _asker):
        connection = host.connection("asking")
        # A question open while its call is stopped is withdrawn; the server is told why.
        call = asyncio.ensure_future(connection.call_tool("ask_form", {}, call_id="gone"))
        await asyncio.wait_for(asked.wait(), 15)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(lambda: any("the user cancelled the request" in n for n in host_notes(connection)))
        # A question arriving just after its call was cancelled is refused without asking.
        asked.clear()
        call = asyncio.ensure_future(connection.call_tool("slow_ask", {"seconds": 0.5}, call_id="late"))
        await asyncio.sleep(0.1)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(lambda: any("late question refused" in line for line in connection.stderr), timeout=10)
        assert not asked.is_set()
        assert connection.status.state is ServerState.READY


async def test_a_question_open_when_its_server_stops_ends_without_a_crash() -> None:
    asked = asyncio.Event()

    async def never_answers(question: Question[Any]) -> Any:
        asked.set()
        await asyncio.Event().wait()

    async with asking_host(never_answers, asking_config("legacy")) as (host, _asker):
        call = asyncio.ensure_future(host.connection("asking").call_tool("ask_form", {}))
        await asyncio.wait_for(asked.wait(), 15)
        await host.remove("asking")
        with pytest.raises(Exception, match="asking"):
            await asyncio.wait_for(call, 10)


@needs_everything
@pytest.mark.npm
async def test_server_everything_asks_for_a_form_and_a_link() -> None:
    def user(question: Question[Any]) -> Any:
        if isinstance(question, FormQuestion):
            return ElicitReply("accept", {**question.form.defaults(), "name": "Grace Hopper"})
        if isinstance(question, UrlQuestion) and question.then_retry:
            question.completion.set()  # the user says they are done (this server sends no completion)
        return ElicitReply("accept")

    async with asking_host(user, everything_config()) as (host, asker):
        connection = host.connection("everything")
        assert connection.catalog is not None
        names = {tool.name for tool in connection.catalog.tools}
        assert {"trigger-elicitation-request", "trigger-url-elicitation", "trigger-sampling-request"} <= names
        assert "get-roots-list" in names
        form = text_of(await connection.call_tool("trigger-elicitation-request", {}))
        assert "User provided the requested information" in form and "Name: Grace Hopper" in form
        [question] = asker.asked
        assert isinstance(question, FormQuestion) and len(question.form.fields) == 13
        assert question.form.field("legacyTitledEnum").options[1].title == "Dogs"  # type: ignore[union-attr]
        link = text_of(await connection.call_tool("trigger-url-elicitation", {"url": "https://example.org/flow"}))
        assert "User completed the URL elicitation flow" in link
        retried = await connection.call_tool(
            "trigger-url-elicitation", {"url": "https://example.org/flow", "errorPath": True, "elicitationId": "e1"}
        )
        assert "User completed the URL elicitation flow" in text_of(retried)
        domains = [q.domain for q in asker.asked if isinstance(q, UrlQuestion)]
        assert domains == ["example.org", "modelcontextprotocol.io", "example.org"]

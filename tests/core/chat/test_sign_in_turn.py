"""A turn whose tool call meets "needs sign-in": the user is asked under the call, signs in, the call goes on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.auth.question import SignInQuestion
from desktop_app.core.chat.events import ChatEvent, ToolCallStarted, ToolResult
from desktop_app.core.host import ServerHost
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_status import ServerState
from tests.core.auth.conftest import ServerFactory, remote
from tests.engine_kit import run, scripted_engine
from tests.hosting import serving_configs
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.oauth_server import ADMIN_SCOPE, ADMIN_TOOL, FollowingBrowser, OAuthTestServer

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]


@asynccontextmanager
async def _signed_in_host(
    server: OAuthTestServer, secrets: SecretStore, browser: FollowingBrowser
) -> AsyncIterator[ServerHost]:
    def use_browser(host: ServerHost) -> None:
        host.sign_in.opener = browser

    async with serving_configs(remote(server), settle=30, prepare=use_browser, secrets=secrets) as host:
        assert await host.connection("remote").auth.sign_in() is None
        assert (await host.connection("remote").wait_settled(30)).state is ServerState.READY
        yield host


async def _turn(host: ServerHost, llm: ScriptedLLM, tool: str) -> list[ChatEvent]:
    exposed = next(t.exposed_name for t in host.catalog.tools() if t.tool.name == tool)
    llm.queue(calls(ToolCall(exposed, {}, id="call-1")), text("Done."))
    return await run(scripted_engine(host, llm), "go")


def _result(events: list[ChatEvent]) -> ToolResult:
    return next(e for e in events if isinstance(e, ToolResult))


async def test_sign_in_card_then_the_call_goes_on(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser, llm: ScriptedLLM
) -> None:
    with oauth_server() as server:
        async with _signed_in_host(server, secrets, browser) as host:
            server.expire_access_tokens()
            server.revoke_refresh_tokens()  # the stored sign-in dies while the server was ready
            asker = ScriptedAsker(lambda question: isinstance(question, SignInQuestion))
            host.questions.asker = asker
            events = await _turn(host, llm, "whoami")
    (question,) = asker.asked
    assert isinstance(question, SignInQuestion)
    assert question.server == "remote" and question.call_id == "call-1"
    assert question.reason == "the sign-in has expired or was revoked"
    result = _result(events)
    assert not result.is_error and "a signed-in user" in result.text
    assert len(browser.opened) == 2


async def test_declining_reports_the_tool_unavailable(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser, llm: ScriptedLLM
) -> None:
    with oauth_server() as server:
        async with _signed_in_host(server, secrets, browser) as host:
            server.expire_access_tokens()
            server.revoke_refresh_tokens()
            asker = ScriptedAsker()  # nobody answers: the question's fallback declines
            host.questions.asker = asker
            events = await _turn(host, llm, "whoami")
    assert [type(q) for q in asker.asked] == [SignInQuestion]
    result = _result(events)
    assert result.is_error
    assert "needs sign-in, which the user declined; its tools are unavailable" in result.text
    assert len(browser.opened) == 1  # only the first sign-in


async def test_step_up_during_a_turn(
    oauth_server: ServerFactory, secrets: SecretStore, browser: FollowingBrowser, llm: ScriptedLLM
) -> None:
    with oauth_server() as server:
        asked: list[Question[Any]] = []

        def agree(question: Question[Any]) -> bool:
            asked.append(question)
            return True

        async with _signed_in_host(server, secrets, browser) as host:
            host.questions.asker = ScriptedAsker(agree)
            events = await _turn(host, llm, ADMIN_TOOL)
    (question,) = asked
    assert isinstance(question, SignInQuestion) and question.scopes == (ADMIN_SCOPE,)
    assert _result(events).text.endswith("admin work done")
    assert any(isinstance(e, ToolCallStarted) for e in events)

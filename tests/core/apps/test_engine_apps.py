"""The chat loop with MCP Apps: app-only tools hidden, partial input streamed, the view's result and context."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.events import ToolInputPartial, ToolResult
from tests.engine_kit import of_type, run, scripted_engine
from tests.hosting import serving
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_names
from tests.servers.app_server import build_app_server

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS]


@pytest.fixture
async def engine(llm: ScriptedLLM) -> AsyncIterator[ChatEngine]:
    async with serving({"apps": build_app_server()}) as host:
        yield scripted_engine(host, llm)


async def test_app_only_tools_are_not_offered_to_the_model(engine: ChatEngine, llm: ScriptedLLM) -> None:
    llm.queue(text("ok"))
    await run(engine, "hi")
    names = tool_names(llm.bodies()[0])
    assert {"apps__probe", "apps__model_only", "apps__plain"} <= set(names)
    assert "apps__bump" not in names


async def test_partial_input_while_streaming_then_the_raw_result(engine: ChatEngine, llm: ScriptedLLM) -> None:
    steps = {"steps": ["call:bump", "read:fixture-app://note", "message:hello there"]}
    llm.queue(calls(ToolCall("apps__probe", steps, id="call_p")), text("done"))
    events = await run(engine, "probe it")
    partials = of_type(events, ToolInputPartial)
    assert partials, "the streamed arguments were not reported"
    assert all((p.call_id, p.server, p.tool) == ("call_p", "apps", "probe") for p in partials)
    assert partials[-1].arguments == steps
    assert len(partials) >= 2  # the arguments arrive in fragments
    [result] = of_type(events, ToolResult)
    assert result.app_result is not None
    assert result.app_result["structuredContent"] == {"steps": 3}
    assert "resultType" not in result.app_result


async def test_tools_without_a_view_report_no_partial_input(engine: ChatEngine, llm: ScriptedLLM) -> None:
    llm.queue(calls(ToolCall("apps__plain", {}, id="call_x")), text("done"))
    events = await run(engine, "plain please")
    assert not of_type(events, ToolInputPartial)
    [result] = of_type(events, ToolResult)
    assert result.app_result is None


async def test_app_context_travels_with_the_next_user_message(engine: ChatEngine, llm: ScriptedLLM) -> None:
    llm.queue(text("noted"))
    await run(engine, "what am I looking at?", context=["[Context from the app ui://fixture/probe.html] note 2"])
    user = llm.bodies()[0]["messages"][-1]
    assert user["role"] == "user"
    assert user["content"] == "what am I looking at?\n\n[Context from the app ui://fixture/probe.html] note 2"

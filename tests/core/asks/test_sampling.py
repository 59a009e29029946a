"""Sampling on the user's model, with consent, review, limits and tools, in both protocol eras."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_types import ModelHint, ModelPreferences

from desktop_app.core.asks.question import Question
from desktop_app.core.asks.sampling import (
    ReviewQuestion,
    ReviewReply,
    SamplingConsent,
    SamplingDecision,
    SamplingQuestion,
)
from desktop_app.core.asks.sampling_messages import MAX_TOOL_ROUNDS, choose_model
from desktop_app.core.asks.service import SamplingGrants, SamplingModel
from desktop_app.core.events import SamplingUsage
from desktop_app.core.host import ServerHost
from desktop_app.core.model.settings import ModelSettings
from tests.core.asks.hosting import ERAS, asking_config, asking_host, call_json, everything_config, host_notes, refusal
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.everything import everything_available

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]


def use_model(host: ServerHost, llm: ScriptedLLM, max_tokens: int = 500) -> None:
    host.asks.model = SamplingModel(ModelSettings("openai/gpt-4.1", api_base=llm.url, max_tokens=max_tokens), "openai")


class User:
    """Allows (with edits) and reviews as scripted; records what it saw."""

    def __init__(self, consent: SamplingConsent, review: ReviewReply | None = None) -> None:
        self.consent = consent
        self.review = review or ReviewReply(True)
        self.seen: list[Question[Any]] = []

    def __call__(self, question: Question[Any]) -> Any:
        self.seen.append(question)
        return self.consent if isinstance(question, SamplingQuestion) else self.review


@pytest.mark.parametrize("era", ERAS)
async def test_consent_edit_run_and_review(era: str, llm: ScriptedLLM) -> None:
    user = User(
        SamplingConsent(SamplingDecision.ONCE, system_prompt="Be brief.", texts={0: "Say hi politely"}),
        ReviewReply(True, text="Hi (edited by the user)"),
    )
    async with asking_host(user, asking_config(era)) as (host, _asker):
        use_model(host, llm, max_tokens=64)
        usage: list[SamplingUsage] = []
        host.bus.subscribe(SamplingUsage, usage.append)
        llm.queue(text("Hi ", "there"))
        reply = await call_json(host.connection("asking"), "sample", {"prompt": "Say hi", "max_tokens": 4000})
        assert reply == {"text": "Hi (edited by the user)", "model": "openai/gpt-4.1", "rounds": 0, "stop": "endTurn"}
        consent, review = user.seen
        assert isinstance(consent, SamplingQuestion) and isinstance(review, ReviewQuestion)
        assert consent.system_prompt == "You are the asking server's helper."
        assert [(m.role, m.text, m.editable) for m in consent.messages] == [("user", "Say hi", True)]
        assert (consent.max_tokens, consent.requested_max_tokens, consent.model) == (64, 4000, "openai/gpt-4.1")
        assert consent.call_id == "c1"
        assert review.text == "Hi there"
        [body] = llm.bodies()
        # Only the server's request, with the user's edits, capped at the user's limit: no conversation.
        assert body["messages"] == [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Say hi politely"},
        ]
        assert body["max_tokens"] == 64
        assert usage == [SamplingUsage("asking", "openai/gpt-4.1", 11, 7)]
        assert "sampling maxTokens 4,000 capped at the user's limit 64" in host_notes(host.connection("asking"))


@pytest.mark.parametrize("era", ERAS)
async def test_denials_reach_the_server_as_errors(era: str, llm: ScriptedLLM) -> None:
    async with asking_host(User(SamplingConsent(SamplingDecision.DENY)), asking_config(era)) as (host, _asker):
        use_model(host, llm)
        assert "The user declined the sampling request" in await refusal(
            host.connection("asking"), "sample", {"prompt": "x"}
        )
        assert llm.requests == []  # nothing reached the model
    user = User(SamplingConsent(SamplingDecision.ONCE), ReviewReply(False))
    async with asking_host(user, asking_config(era)) as (host, _asker):
        use_model(host, llm)
        llm.queue(text("secret plans"))
        message = await refusal(host.connection("asking"), "sample", {"prompt": "x"})
        assert "did not let the model's answer go back" in message and "secret plans" not in message


async def test_standing_permissions_skip_the_questions(llm: ScriptedLLM, tmp_path: Path) -> None:
    user = User(SamplingConsent(SamplingDecision.CHAT))
    async with asking_host(user, asking_config("legacy")) as (host, _asker):
        use_model(host, llm)
        host.asks.chat = "chat-1"
        llm.queue(text("one"), text("two"), text("three"))
        connection = host.connection("asking")
        assert (await call_json(connection, "sample", {"prompt": "a"}))["text"] == "one"
        assert (await call_json(connection, "sample", {"prompt": "b"}))["text"] == "two"
        assert len(user.seen) == 1  # allowed for this chat: no second consent, no review
        host.asks.chat = "chat-2"
        user.consent = SamplingConsent(SamplingDecision.ALWAYS)
        host.asks.grants = SamplingGrants(tmp_path / "sampling.json")
        assert (await call_json(connection, "sample", {"prompt": "c"}))["text"] == "three"
        assert len(user.seen) == 2
    assert SamplingGrants(tmp_path / "sampling.json").always() == ["asking"]  # kept for the next start
    assert json.loads((tmp_path / "sampling.json").read_text()) == {"always_allow": ["asking"]}


@pytest.mark.parametrize("era", ERAS)
async def test_tool_rounds_go_back_to_the_server_and_are_bounded(era: str, llm: ScriptedLLM) -> None:
    user = User(SamplingConsent(SamplingDecision.ONCE))
    async with asking_host(user, asking_config(era)) as (host, _asker):
        use_model(host, llm)
        llm.queue(calls(ToolCall("lookup_weather", {"city": "Oslo"})), text("Sunny in Oslo."))
        reply = await call_json(host.connection("asking"), "sample", {"prompt": "Weather?", "with_tools": True})
        assert reply["text"] == "Sunny in Oslo." and reply["rounds"] == 1
        first, second = llm.bodies()
        assert [t["function"]["name"] for t in first["tools"]] == ["lookup_weather"]
        assert first["tool_choice"] == "auto"
        tool_result = {"role": "tool", "tool_call_id": "call_0_lookup_weather", "content": "Sunny in Oslo"}
        assert second["messages"][-1] == tool_result
        kinds = [type(q).__name__ for q in user.seen]
        assert kinds == ["SamplingQuestion", "ReviewQuestion", "ReviewQuestion"]  # one consent covers the round
        assert user.seen[1].tool_uses == (("lookup_weather", '{"city": "Oslo"}'),)  # type: ignore[attr-defined]

        loop = [calls(ToolCall("lookup_weather", {"city": f"c{i}"})) for i in range(MAX_TOOL_ROUNDS)]
        llm.queue(*loop, text("Done."))
        reply = await call_json(host.connection("asking"), "sample", {"prompt": "Loop", "with_tools": True})
        assert reply["rounds"] == MAX_TOOL_ROUNDS and reply["text"] == "Done."
        assert llm.bodies()[-1]["tool_choice"] == "none"  # the model must answer once the bound is reached


async def test_bad_sampling_requests_are_refused_with_a_reason(llm: ScriptedLLM) -> None:
    async with asking_host(User(SamplingConsent(SamplingDecision.ONCE)), asking_config("legacy")) as (host, asker):
        connection = host.connection("asking")
        assert "no model is configured in MCP Desk" in await refusal(connection, "sample", {"prompt": "x"})
        use_model(host, llm)
        assert "maxTokens must be at least 1, not 0" in await refusal(
            connection, "sample", {"prompt": "x", "max_tokens": 0}
        )
        llm.queue(text("ok"))
        absurd = await call_json(connection, "sample", {"prompt": "x", "max_tokens": 10**12})
        assert absurd["text"] == "ok" and llm.bodies()[-1]["max_tokens"] == 500
        assert asker.asked and all(q.server == "asking" for q in asker.asked)


def test_model_hints_map_only_within_the_configured_provider() -> None:
    model = SamplingModel(ModelSettings("anthropic/claude-sonnet-4-5"), "anthropic")

    def hints(*names: str) -> ModelPreferences:
        return ModelPreferences(hints=[ModelHint(name=n) for n in names])

    assert choose_model(None, model) == "anthropic/claude-sonnet-4-5"
    assert choose_model(hints("haiku"), model) == "anthropic/claude-haiku-4-5"
    assert choose_model(hints("gpt-4o", "sonnet"), model) == "anthropic/claude-sonnet-4-5"
    assert choose_model(hints("gpt-4o"), model) == "anthropic/claude-sonnet-4-5"  # another provider: ignored
    local = SamplingModel(ModelSettings("ollama/llama3", api_base="http://localhost:11434"), "ollama")
    assert choose_model(hints("claude"), local) == "ollama/llama3"


@pytest.mark.skipif(not everything_available(), reason="server-everything is not installed")
@pytest.mark.npm
async def test_server_everything_samples(llm: ScriptedLLM) -> None:
    async with asking_host(User(SamplingConsent(SamplingDecision.ONCE)), everything_config()) as (host, _asker):
        use_model(host, llm)
        llm.queue(text("Forty-two."))
        result = await host.connection("everything").call_tool("trigger-sampling-request", {"prompt": "meaning?"})
        assert "Forty-two." in result.content[0].text  # type: ignore[union-attr]
        assert llm.bodies()[0]["messages"][0] == {"role": "system", "content": "You are a helpful test server."}

"""Helpers for tests that drive a `ChatEngine` against a scripted provider (`tests/llm_server.py`): one way
to build the engine, run a turn and read its events. Qt-free, like `hosting.py`, so the core's tests load
no Qt."""

from __future__ import annotations

from typing import Any, TypeVar

from desktop_app.core.asks.question import Asker
from desktop_app.core.chat.approval import AlwaysAllowRules, ApprovalPolicy
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.events import ChatEvent, TurnFinished
from desktop_app.core.host import ServerHost
from desktop_app.core.model.settings import ChatOptions, ModelSettings
from tests.llm_server import RecordingApprover, ScriptedLLM

E = TypeVar("E", bound=ChatEvent)


def scripted_engine(
    host: ServerHost,
    llm: ScriptedLLM,
    approver: Asker | None = None,
    *,
    rules: AlwaysAllowRules | None = None,
    model: str = "openai/scripted",
    max_tokens: int = 500,
    **options: Any,
) -> ChatEngine:
    """An engine on `host`'s servers whose model is `llm` (at its bare origin for `anthropic/` models, which
    add `/v1` themselves), with no retries; calls are put to `approver` (by default a `RecordingApprover`,
    which allows each once) after `rules`; `options` are the `ChatOptions`."""
    base = llm.root if model.startswith("anthropic/") else llm.url
    settings = ModelSettings(model, api_base=base, max_tokens=max_tokens, max_retries=0)
    policy = ApprovalPolicy(RecordingApprover() if approver is None else approver, rules)
    return ChatEngine(host, settings, policy, options=ChatOptions(**options))


async def run(engine: ChatEngine, message: str, conversation: Conversation | None = None, **kw: Any) -> list[ChatEvent]:
    """Every event of one turn that sends `message` in `conversation` (by default a new one)."""
    turn = engine.start_turn(Conversation() if conversation is None else conversation, message, **kw)
    return [event async for event in turn]


def of_type(events: list[ChatEvent], kind: type[E]) -> list[E]:
    """The events of one kind, in order."""
    return [e for e in events if isinstance(e, kind)]


def finished(events: list[ChatEvent]) -> TurnFinished:
    """The turn's last event, which ends it."""
    assert isinstance(events[-1], TurnFinished), events
    return events[-1]

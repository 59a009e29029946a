"""The question budget: a server that asks again the moment it is answered never trips the flood guard
(nothing waits), so each tool call and each server may put only so many questions to the user; past that
they are refused with the flood guard's "not asked" error, said once, with one notice for the user."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.core.asks.budget import MAX_PER_CALL, QuestionBudget, Stop
from desktop_app.core.asks.context import NOT_ASKED
from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.question import AskingStopped, Question
from tests.core.asks.hosting import asking_config, asking_host, call_json, host_notes

pytestmark = pytest.mark.anyio


def decline(question: Question[Any]) -> Any:
    return None if isinstance(question, AskingStopped) else ElicitReply("decline")


async def test_a_call_asking_one_form_after_another_is_stopped_after_its_share() -> None:
    refusals: list[str] = []
    async with asking_host(decline, asking_config("legacy"), stdio=True) as (host, asker):
        host.asks.on_refusal = lambda server, text: refusals.append(text)
        connection = host.connection("asking")
        outcomes = await call_json(connection, "ask_again", {"count": 40}, call_id="call_1")
        assert outcomes[:MAX_PER_CALL] == ["decline"] * MAX_PER_CALL
        refused = outcomes[MAX_PER_CALL:]
        assert len(refused) == 40 - MAX_PER_CALL
        assert all(o.startswith(f"error {NOT_ASKED}: MCP Desk refused a form: too many questions") for o in refused)
        assert f"'asking' asked {MAX_PER_CALL} questions during one tool call" in refused[0]
        assert len([q for q in asker.asked if isinstance(q, FormQuestion)]) == MAX_PER_CALL
        assert [type(q) for q in asker.asked if not isinstance(q, FormQuestion)] == [AskingStopped]
        assert len(refusals) == 1  # one line, not thirty

        # The next call has its own share.
        assert await call_json(connection, "ask_again", {"count": 1}, call_id="c2") == ["decline"]
        assert sum(n.startswith("refused a form") for n in host_notes(connection)) == 40 - MAX_PER_CALL


def test_a_server_has_a_rolling_share_across_its_calls() -> None:
    now = [0.0]
    budget = QuestionBudget(per_call=5, per_server=8, window_s=120, clock=lambda: now[0])
    for index in range(8):
        assert budget.spend("s", f"call-{index}") is None  # eight calls, one question each
    stop = budget.spend("s", "call-8")
    assert stop == Stop("'s' asked 8 questions within 2 minutes; it is not asked more for now", first=True)
    assert budget.spend("s", None) == Stop(stop.reason, first=False)  # said once
    assert budget.stopped("s", "call-8") == stop.reason  # the call that was refused is stopped for good
    assert budget.stopped("s", None) == stop.reason and budget.stopped("t", None) is None
    assert budget.spend("t", None) is None  # other servers are not affected
    now[0] = 121.0
    assert budget.stopped("s", None) is None and budget.spend("s", "call-9") is None  # the window moved on
    assert budget.spend("s", "call-8") == Stop(stop.reason, first=False)


def test_a_calls_share_is_exact_and_questions_outside_a_call_count_for_the_server() -> None:
    budget = QuestionBudget(per_call=3, per_server=1000)
    assert [budget.spend("s", "c") for _ in range(3)] == [None, None, None]
    stop = budget.spend("s", "c")
    assert stop is not None and stop.first and "asked 3 questions during one tool call" in stop.reason
    assert budget.spend("s", None) is None  # questions outside a call count only for the server

"""The question family's rules: fallbacks, deadlines, scripted answers and the per-server gate."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from desktop_app.core.asks.question import (
    FallbackAsker,
    Question,
    QuestionGate,
    ScriptedAsker,
    TooManyQuestions,
    ask_user,
)

pytestmark = pytest.mark.anyio


@dataclass(frozen=True, kw_only=True)
class Color(Question[str]):
    """A toy question: its fallback is the safe refusal."""

    prompt: str = "favourite colour?"

    def fallback(self) -> str:
        return "declined"


class Waiting:
    """An asker that holds each question until the test answers it."""

    def __init__(self) -> None:
        self.open: list[tuple[Question[str], asyncio.Future[str]]] = []

    async def ask(self, question: Question[str]) -> str:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.open.append((question, future))
        try:
            return await future
        finally:
            self.open.remove((question, future))


async def test_fallback_and_scripted_answers() -> None:
    assert await FallbackAsker().ask(Color(server="s")) == "declined"
    scripted = ScriptedAsker(lambda q: f"blue for {q.server}")
    assert await scripted.ask(Color(server="a")) == "blue for a"

    async def later(q: Question[str]) -> str:
        await asyncio.sleep(0)
        return "green"

    assert await ScriptedAsker(later).ask(Color(server="b")) == "green"
    assert [q.server for q in scripted.asked] == ["a"]
    assert await ScriptedAsker().ask(Color(server="c")) == "declined"


async def test_a_question_that_times_out_gets_its_fallback_and_is_withdrawn() -> None:
    asker = Waiting()
    reply = await ask_user(asker, Color(server="s", timeout=0.05))
    assert reply == "declined"
    assert asker.open == []  # the asker saw the cancellation and withdrew the question


async def test_gate_shows_one_question_per_server_and_refuses_a_flood() -> None:
    asker = Waiting()
    gate = QuestionGate(asker, max_waiting=1)
    first = asyncio.ensure_future(gate.ask(Color(server="s")))
    second = asyncio.ensure_future(gate.ask(Color(server="s")))
    other = asyncio.ensure_future(gate.ask(Color(server="t")))
    await asyncio.sleep(0.01)
    assert [q.server for q, _ in asker.open] == ["s", "t"]  # one open per server, servers independent
    assert gate.waiting("s") == 2
    with pytest.raises(TooManyQuestions, match=r"too many questions .* already has 2 questions"):
        await gate.ask(Color(server="s"))
    asker.open[0][1].set_result("red")
    assert await first == "red"
    await asyncio.sleep(0.01)
    assert [q.server for q, _ in asker.open] == ["t", "s"]  # the queued one opens once the first is answered
    for _, future in list(asker.open):
        future.set_result("ok")
    assert await second == "ok" and await other == "ok"
    assert gate.waiting("s") == 0

"""Questions belong to their tool call, and the call's timeout does not count the user's time."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest

from desktop_app.core.asks.attribution import CallTracker, within_timeout
from desktop_app.core.asks.elicitation import ElicitReply
from desktop_app.core.asks.question import Question
from tests.core.asks.hosting import ERAS, asking_config, asking_host, call_json

pytestmark = pytest.mark.anyio


async def test_the_clock_stops_while_the_call_waits_on_us() -> None:
    tracker = CallTracker("s")
    async with tracker.track("c") as scope:

        async def server_asks_then_answers() -> str:
            with scope.on_our_side():
                await asyncio.sleep(0.3)  # the user thinks longer than the timeout
            await asyncio.sleep(0.1)  # then the server needs a little time of its own
            return "done"

        assert await within_timeout(scope, 0.2, server_asks_then_answers()) == "done"
        with pytest.raises(TimeoutError):
            await within_timeout(scope, 0.1, asyncio.sleep(5))


async def test_a_question_belongs_to_the_call_in_this_task_or_the_latest_in_flight() -> None:
    tracker = CallTracker("s")
    assert tracker.scope() is None
    async with tracker.track("first") as first:
        assert tracker.scope() is first
        seen: list[str | None] = []

        async def elsewhere() -> None:  # a 2025-era request arrives on the session's own task
            scope = tracker.scope()
            seen.append(scope.call_id if scope else None)

        await asyncio.get_running_loop().create_task(elsewhere(), context=contextvars.Context())
        assert seen == ["first"]
    assert tracker.scope() is None and not tracker.recently_cancelled()
    with pytest.raises(asyncio.CancelledError):
        async with tracker.track("cancelled"):
            raise asyncio.CancelledError
    assert tracker.recently_cancelled()


@pytest.mark.parametrize("era", ERAS)
async def test_a_user_slower_than_the_server_timeout_does_not_time_the_call_out(era: str) -> None:
    async def slow_user(question: Question[Any]) -> Any:
        await asyncio.sleep(1.5)
        return ElicitReply("decline")

    async with asking_host(slow_user, asking_config(era, timeout=0.8)) as (host, _asker):
        assert await call_json(host.connection("asking"), "ask_form", {}) == {"action": "decline"}

"""An owner stopped before its task first ran leaves no coroutine behind "never awaited"."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from desktop_app.core.connection.owner_task import OwnerTask

pytestmark = pytest.mark.anyio


async def test_an_owner_stopped_before_it_ran_closes_its_body() -> None:
    ran: list[str] = []

    async def body() -> None:
        ran.append("body")

    owner = OwnerTask(lambda _level, _text: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        owner.start(body(), "owner")
        owner.cancel()  # before the loop ever ran it
        await owner.stop(asked=True, timeout=1)
        assert not owner.running
        del owner  # its task, and the cancellation's traceback, held the body until now
        gc.collect()
    assert ran == []
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []


async def test_an_owner_that_ran_finishes_its_body() -> None:
    ran: list[str] = []

    async def body() -> None:
        await asyncio.sleep(0)
        ran.append("body")

    owner = OwnerTask(lambda _level, _text: None)
    owner.start(body(), "owner")
    await owner.stop(asked=True, timeout=1)
    assert ran == ["body"]

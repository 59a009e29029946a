"""A message sent the moment the app starts waits for its servers to connect, briefly, so the model's first
request carries what they offer (real stdio servers, real litellm, a scripted provider over HTTP)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.events import ChatEvent, ModelCallStarted, ServersConnecting, TurnFinished
from desktop_app.core.host import ServerHost
from desktop_app.core.server_status import ServerState
from tests.engine_kit import run, scripted_engine
from tests.hosting import fixture_config, serving_configs
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text
from tests.servers.fixture_server import RESOURCE_URIS

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]


@pytest.fixture
async def host() -> AsyncIterator[ServerHost]:
    async with serving_configs() as host:
        yield host


async def turn(engine: ChatEngine) -> list[ChatEvent]:
    return await run(engine, "What is in my notes?")


@pytest.mark.stdio
async def test_a_message_sent_as_the_servers_start_reaches_the_model_with_their_catalog(
    host: ServerHost, llm: ScriptedLLM
) -> None:
    llm.queue(text("Here they are."))
    host.start([fixture_config("notes")])
    assert host.connection("notes").status.state is not ServerState.READY

    events = await turn(scripted_engine(host, llm))

    assert events[0] == ServersConnecting(("notes",))
    assert isinstance(events[1], ModelCallStarted)
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "Here they are."
    [body] = llm.bodies()
    system = body["messages"][0]["content"]
    assert all(uri in system for uri in RESOURCE_URIS)  # the first request carries the server's catalog


async def test_a_server_that_never_finishes_connecting_holds_the_message_only_as_long_as_the_wait(
    host: ServerHost, llm: ScriptedLLM
) -> None:
    llm.queue(text("Answered without it."))
    host.start([fixture_config("stuck", "--hang-on-start")])
    started = time.monotonic()

    events = await turn(scripted_engine(host, llm, connecting_wait=0.5))

    assert events[0] == ServersConnecting(("stuck",))
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "Answered without it."
    assert time.monotonic() - started < 10  # not the server's own handshake timeout
    assert host.connection("stuck").status.state is ServerState.STARTING
    assert not any(uri in llm.bodies()[0]["messages"][0]["content"] for uri in RESOURCE_URIS)


async def test_a_message_after_the_servers_settled_does_not_wait(host: ServerHost, llm: ScriptedLLM) -> None:
    host.start([fixture_config("notes")])
    await host.wait_settled(30)
    llm.queue(text("Hello"))

    events = await turn(scripted_engine(host, llm))

    assert not any(isinstance(event, ServersConnecting) for event in events)
    assert isinstance(events[0], ModelCallStarted)

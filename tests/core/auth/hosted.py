"""A host running remote servers that sign in, with the test's browser: shared by the sign-in tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from desktop_app.core.events import ServerStateChanged
from desktop_app.core.host import ServerHost
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState, ServerStatus
from tests.hosting import FAST_RESTARTS


@asynccontextmanager
async def hosted(
    secrets: SecretStore, browser: Any, *configs: ServerConfig
) -> AsyncIterator[tuple[ServerHost, list[ServerStatus]]]:
    host = ServerHost(secrets=secrets, policy=FAST_RESTARTS)
    host.sign_in.opener = browser
    states: list[ServerStatus] = []
    host.bus.subscribe(ServerStateChanged, lambda e: states.append(e.status) if e.server == configs[0].name else None)
    host.start(configs)
    try:
        await host.wait_settled(30)
        yield host, states
    finally:
        await host.stop_all()


async def signed_in(host: ServerHost, name: str = "remote") -> None:
    assert await host.connection(name).auth.sign_in() is None
    status = await host.connection(name).wait_settled(30)
    assert status.state is ServerState.READY, status.summary

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
from tests.hosting import serving_configs


@asynccontextmanager
async def hosted(
    secrets: SecretStore, browser: Any, *configs: ServerConfig
) -> AsyncIterator[tuple[ServerHost, list[ServerStatus]]]:
    states: list[ServerStatus] = []

    def watch(host: ServerHost) -> None:
        host.sign_in.opener = browser
        host.bus.subscribe(
            ServerStateChanged, lambda e: states.append(e.status) if e.server == configs[0].name else None
        )

    async with serving_configs(*configs, settle=30, prepare=watch, secrets=secrets) as host:
        yield host, states


async def signed_in(host: ServerHost, name: str = "remote") -> None:
    assert await host.connection(name).auth.sign_in() is None
    status = await host.connection(name).wait_settled(30)
    assert status.state is ServerState.READY, status.summary

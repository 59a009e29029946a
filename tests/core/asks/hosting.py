"""Hosts that answer servers' questions with a scripted user, for the ask-back tests."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import TextContent

from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.connection import ServerConnection
from desktop_app.core.host import ServerHost
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import TransportHooks, open_transport
from tests.hosting import serving_configs
from tests.servers.asking_server import build_asking_server
from tests.servers.everything import everything_stdio_params
from tests.servers.sampling_abuse_server import build_sampling_abuse_server

ASKING_SCRIPT = Path(__file__).resolve().parents[2] / "servers" / "asking_server.py"
ABUSE_SCRIPT = Path(__file__).resolve().parents[2] / "servers" / "sampling_abuse_server.py"
ERAS = ("legacy", "2026-07-28")


def asking_config(protocol: str = "auto", name: str = "asking", **options: Any) -> ServerConfig:
    """The asking fixture server over real stdio, in the given protocol era."""
    return ServerConfig(
        name=name,
        transport=TransportKind.STDIO,
        command=sys.executable,
        args=(str(ASKING_SCRIPT),),
        protocol=protocol,
        **options,
    )


def abuse_config() -> ServerConfig:
    """The hostile sampling server over real stdio (2025-11-25: it sends its requests past the SDK's checks)."""
    return ServerConfig(
        name="abuser",
        transport=TransportKind.STDIO,
        command=sys.executable,
        args=(str(ABUSE_SCRIPT),),
        protocol="legacy",
    )


def everything_config(**options: Any) -> ServerConfig:
    params = everything_stdio_params()
    return ServerConfig(
        name="everything", transport=TransportKind.STDIO, command=params.command, args=tuple(params.args), **options
    )


def _inprocess(config: ServerConfig, hooks: TransportHooks) -> Any:
    """The asking and the sampling-abuse servers in this process (fast), any other server as configured."""
    if config.args == (str(ASKING_SCRIPT),):
        return build_asking_server()
    if config.args == (str(ABUSE_SCRIPT),):
        return build_sampling_abuse_server()
    return open_transport(config, hooks)


@asynccontextmanager
async def asking_host(
    answer: Callable[[Question[Any]], Any] | None, *configs: ServerConfig, stdio: bool = False
) -> AsyncIterator[tuple[ServerHost, ScriptedAsker]]:
    """A host whose user is `answer` (None: every question gets its fallback), with `configs` ready.

    The asking and sampling-abuse servers run in-process unless `stdio` (then as real subprocesses, like
    every other server).
    """
    asker = ScriptedAsker(answer)
    target_factory = open_transport if stdio else _inprocess
    async with serving_configs(*configs, settle=30, asker=asker, target_factory=target_factory) as host:
        for config in configs:
            assert host.connection(config.name).status.state is ServerState.READY, host.connection(config.name).status
        yield host, asker


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def call_json(connection: ServerConnection, tool: str, arguments: dict[str, Any], call_id: str = "c1") -> Any:
    result = await connection.call_tool(tool, arguments, call_id=call_id)
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result))


async def refusal(connection: ServerConnection, tool: str, arguments: dict[str, Any]) -> str:
    """What a refused question made of the call: an error result or a JSON-RPC error (a server's choice)."""
    try:
        result = await connection.call_tool(tool, arguments)
    except MCPError as exc:
        return exc.message
    assert result.is_error, text_of(result)
    return text_of(result)


def host_notes(connection: ServerConnection) -> list[str]:
    return [entry.text for entry in connection.log if entry.source == "host"]

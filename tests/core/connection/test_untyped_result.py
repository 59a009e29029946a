"""Results the SDK alone would refuse: without `resultType` on the 2026-07-28 protocol (a complete result, as
the specification says), and one whose tool's output schema cannot be used (the schema is ignored)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp_types import TextContent

from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.hosting import serving_configs
from tests.servers.untyped_result_server import REMOTE_OUTPUT_TOOL, TYPED_TOOL, UNTYPED_TOOL

pytestmark = pytest.mark.anyio

SCRIPT = Path(__file__).parents[2] / "servers" / "untyped_result_server.py"


def _config() -> ServerConfig:
    return ServerConfig(name="untyped", transport=TransportKind.STDIO, command=sys.executable, args=(str(SCRIPT),))


async def test_a_result_without_result_type_is_read_as_complete() -> None:
    config = _config()
    async with serving_configs(config, settle=60) as host:
        connection = host.connection("untyped")
        assert connection.status.protocol_version == "2026-07-28"
        result = await connection.call_tool(UNTYPED_TOOL, {"text": "hello"})
        assert not result.is_error
        assert result.content == [TextContent(text=f"{UNTYPED_TOOL}: hello")]
        typed = await connection.call_tool(TYPED_TOOL, {"text": "again"})
        assert typed.content == [TextContent(text=f"{TYPED_TOOL}: again")]


async def test_an_output_schema_that_cannot_be_used_is_ignored_and_the_call_succeeds() -> None:
    async with serving_configs(_config(), settle=60) as host:
        connection = host.connection("untyped")
        result = await connection.call_tool(REMOTE_OUTPUT_TOOL, {"text": "box"})
        assert not result.is_error
        assert result.content == [TextContent(text=f"{REMOTE_OUTPUT_TOOL}: box")]
        assert result.structured_content == {"thing": "box"}
        assert host.catalog.tool(f"untyped__{REMOTE_OUTPUT_TOOL}") is not None  # the tool is offered all the same

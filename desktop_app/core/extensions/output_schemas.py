"""An output schema MCP Desk cannot use is ignored, not a reason to fail every call of its tool.

The tools specification has clients validate a result's `structuredContent` against the tool's
`outputSchema` when they can. mcp 2.3's client validates every result itself and fails the call
when the schema cannot be used at all (`RuntimeError: Invalid schema for tool …`: not valid JSON
Schema, or a `$ref` it will not fetch), after the tool has run. MCP Desk never shows the model an
output schema (the model reads the result's content), so it ignores such a schema and keeps the tool
(`core/tool_schemas.output_problem` decides, and the Servers panel says so).

The SDK has no hook for this: it keeps the schemas it last listed per tool
(`ClientSession._tool_output_schemas`) and validates against them. After each listing, the
connection forgets the unusable ones there (a tool without an output schema is not validated). A
listing the SDK makes on its own (the re-listing after a `HEADER_MISMATCH`) would bring one back
until MCP Desk lists again. Remove this module once the SDK skips a schema it cannot compile.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcp.client import ClientSession


def ignore_output_schemas(session: ClientSession, tools: Iterable[str]) -> None:
    """Have the SDK's client stop validating results of `tools` against their (unusable) output schemas."""
    for name in tools:
        session._tool_output_schemas[name] = None
        session._tool_output_validators.pop(name, None)

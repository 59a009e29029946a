"""The SDK client's check of every result, made to follow the specification where the two disagree.

mcp 2.3's client checks each result against the generated wire model of the negotiated protocol
(`mcp_types.methods.validate_server_result`, from `ClientSession.send_request`) before anything else
sees it, and fails the whole request when it does not fit. Two cases fail where the specification,
or what MCP Desk makes of a server's tools, says otherwise:

- **A result without `resultType`** on 2026-07-28. The schema says servers MUST include it and that
  "when a client receives a result from a server implementing an earlier protocol version (which
  does not include `resultType`), the client MUST treat the absent field as `complete`"; servers
  written before the field existed answer that way (the conformance suite has a tool that does). The
  SDK's wire model requires the field (`ValidationError … union[CallToolResult, InputRequiredResult]
  … resultType Field required`); its own result types already default it to `complete`. MCP Desk
  follows the specification: the check reads the result as `complete`.
- **A tool listing with one tool whose schema is not an object schema** (`inputSchema` or
  `outputSchema` of `type: "string"`, or none). The wire model wants `type: "object"`, so one such
  tool loses the server's whole listing. MCP Desk quarantines that one tool instead
  (`core/tool_schemas`: it is kept from the model, and the user is told why); so the check looks at
  the listing as if those schemas were objects, and the tools themselves keep the schemas they came with.

No hook reaches that check: it runs on the raw result before the extension claims (`ResultClaim`)
are consulted, and claims are keyed by a present, non-core `resultType`. So this module wraps the
one function the client session calls for it, as the client session module sees it (the SDK's
servers and everything else keep the original). The monolith result types parse the result as it
came. Remove it once the SDK defaults `resultType` and checks tools one by one.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, Final

import mcp.client.session as _client_session
from mcp_types import methods as _methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

RESULT_TYPE: Final = "resultType"
_TOOL_SCHEMAS: Final = ("inputSchema", "outputSchema")


def with_result_type(version: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """`data` as the specification reads it on `version`: an absent `resultType` means `complete`."""
    if version in MODERN_PROTOCOL_VERSIONS and RESULT_TYPE not in data:
        return {**data, RESULT_TYPE: "complete"}
    return data


def with_object_schemas(method: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A `tools/list` result as the check should see it: each tool's schema an object schema."""
    tools = data.get("tools")
    if method != "tools/list" or not isinstance(tools, list):
        return data
    return {**data, "tools": [_object_schemas(tool) for tool in tools]}


def _object_schemas(tool: Any) -> Any:
    if not isinstance(tool, dict):
        return tool
    seen = dict(tool)
    for key in _TOOL_SCHEMAS:
        schema = seen.get(key)
        if isinstance(schema, dict) and schema.get("type") != "object":
            seen[key] = {**schema, "type": "object"}
    return seen


def _validate_server_result(method: str, version: str, data: Mapping[str, Any], **options: Any) -> None:
    checked = with_object_schemas(method, with_result_type(version, data))
    _methods.validate_server_result(method, version, checked, **options)


class _Methods(ModuleType):
    """`mcp_types.methods` with the check above; every other name is the module's own."""

    validate_server_result = staticmethod(_validate_server_result)

    def __getattr__(self, name: str) -> Any:
        return getattr(_methods, name)


def install() -> None:
    """Have the SDK's client check results as above (idempotent)."""
    if not installed():
        vars(_client_session)["_methods"] = _Methods(_methods.__name__)


def installed() -> bool:
    return isinstance(vars(_client_session)["_methods"], _Methods)

"""Server tools as a model is offered them: namespaced names and provider-safe input schemas."""

from __future__ import annotations

import copy
from typing import Any, Final

from desktop_app.core.catalog import Catalog

MAX_DESCRIPTION: Final = 1000
# Keys some providers reject at the top of a function's parameters.
_DROPPED_KEYS: Final = ("$schema", "$id")


def normalize_schema(schema: Any) -> dict[str, Any]:
    """An object schema every provider accepts: `type: object` with `properties`, no `$schema`."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    out = {k: copy.deepcopy(v) for k, v in schema.items() if k not in _DROPPED_KEYS}
    out["type"] = "object"
    if not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    if "required" in out and not isinstance(out["required"], list):
        del out["required"]
    return out


def _description(server: str, text: str | None) -> str:
    body = " ".join((text or "").split()) or "No description."
    full = f"[server: {server}] {body}"
    return full if len(full) <= MAX_DESCRIPTION else full[: MAX_DESCRIPTION - 1] + "…"


def server_tool_specs(catalog: Catalog) -> list[dict[str, Any]]:
    """Every ready server's tools in OpenAI function format, sorted by exposed name."""
    specs = []
    for entry in sorted(catalog.tools(), key=lambda t: t.exposed_name):
        function = {
            "name": entry.exposed_name,
            "description": _description(entry.server, entry.tool.description),
            "parameters": normalize_schema(entry.tool.input_schema),
        }
        specs.append({"type": "function", "function": function})
    return specs

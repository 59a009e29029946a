"""The `_meta.ui` of tools and `ui://` resources, read defensively (servers fill it in by hand)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from mcp_types import Tool

from desktop_app.core.extensions.apps_csp import AppCsp, clean_origins

EXTENSION_ID: Final = "io.modelcontextprotocol/ui"
APP_MIME_TYPE: Final = "text/html;profile=mcp-app"
PROTOCOL_VERSION: Final = "2026-01-26"
"""The MCP Apps protocol version this host speaks (the stable release of the extension)."""
DEFAULT_VISIBILITY: Final = ("model", "app")
PERMISSION_NAMES: Final = ("camera", "microphone", "geolocation", "clipboardWrite")


def client_extension_settings() -> dict[str, Any]:
    """What MCP Desk advertises under `capabilities.extensions["io.modelcontextprotocol/ui"]`."""
    return {"mimeTypes": [APP_MIME_TYPE]}


def _ui(meta: Mapping[str, Any] | None) -> Mapping[str, Any]:
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return ui if isinstance(ui, Mapping) else {}


def ui_resource_uri(tool: Tool) -> str | None:
    """The `ui://` view a tool's results are shown in, if it names a valid one.

    The flat `_meta["ui/resourceUri"]` key is deprecated by the specification but still read,
    as the reference host does; the nested key wins when both are present.
    """
    uri = _ui(tool.meta).get("resourceUri")
    if uri is None and isinstance(tool.meta, Mapping):
        uri = tool.meta.get("ui/resourceUri")
    return uri if isinstance(uri, str) and uri.startswith("ui://") else None


def visibility(tool: Tool) -> tuple[str, ...]:
    """Who may call `tool`: "model", "app" or both (the default, also for malformed values)."""
    value = _ui(tool.meta).get("visibility")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return DEFAULT_VISIBILITY
    return tuple(v for v in value if v in DEFAULT_VISIBILITY)


def visible_to_model(tool: Tool) -> bool:
    return "model" in visibility(tool)


def callable_by_app(tool: Tool) -> bool:
    return "app" in visibility(tool)


@dataclass(frozen=True)
class UiResourceMeta:
    """A `ui://` resource's `_meta.ui`: its CSP, the permissions it asks for, its border wish."""

    csp: AppCsp = field(default_factory=AppCsp)
    permissions: tuple[str, ...] = ()
    prefers_border: bool | None = None
    rejected: tuple[str, ...] = ()
    """Declared origins refused as malformed (they are never allowed; the user is told)."""


def parse_resource_meta(meta: Mapping[str, Any] | None) -> UiResourceMeta:
    """Read `_meta.ui` of a resource; what is malformed is dropped (never loosened) and reported."""
    ui = _ui(meta)
    raw_csp = ui.get("csp")
    csp_meta: Mapping[str, Any] = raw_csp if isinstance(raw_csp, Mapping) else {}
    rejected: list[str] = []

    def origins(key: str) -> tuple[str, ...]:
        good, bad = clean_origins(csp_meta.get(key))
        rejected.extend(bad)
        return good

    csp = AppCsp(
        connect=origins("connectDomains"),
        resource=origins("resourceDomains"),
        frame=origins("frameDomains"),
        base_uri=origins("baseUriDomains"),
    )
    raw_permissions = ui.get("permissions")
    permissions: tuple[str, ...] = ()
    if isinstance(raw_permissions, Mapping):
        permissions = tuple(name for name in PERMISSION_NAMES if isinstance(raw_permissions.get(name), Mapping))
    border = ui.get("prefersBorder")
    return UiResourceMeta(csp, permissions, border if isinstance(border, bool) else None, tuple(rejected))


@dataclass(frozen=True)
class ViewOrigin:
    """Who asks when a request comes from an MCP App view rather than the model."""

    resource_uri: str
    call_id: str | None = None
    """The tool call whose card shows the view (None for a view opened from the resource browser)."""

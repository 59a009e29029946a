"""What a view is told about its host (`ui/initialize`'s `hostContext`): theme, size, locale, tool.

Only what the view needs to fit in: the window's light or dark look as style variables, the room
it has, the user's locale and time zone, and the tool it shows (with the chat's call id).
"""

from __future__ import annotations

import locale
from typing import Any

from mcp_types import Tool
from PySide6.QtCore import QTimeZone
from PySide6.QtWidgets import QWidget

from desktop_app import __version__
from desktop_app.ui.apps.look import is_dark, style_variables


def look_context(widget: QWidget) -> dict[str, Any]:
    """The theme and its style variables, as `widget` is drawn now (sent again when the palette changes)."""
    return {"theme": "dark" if is_dark(widget) else "light", "styles": {"variables": style_variables(widget)}}


def host_context(widget: QWidget, container: dict[str, int], tool: Tool | None, call_id: str | None) -> dict[str, Any]:
    """The whole host context for a view drawn in `widget`, with `container` its dimensions."""
    context: dict[str, Any] = {
        **look_context(widget),
        "displayMode": "inline",
        "availableDisplayModes": ["inline"],
        "containerDimensions": container,
        "locale": (locale.getlocale()[0] or "en_US").replace("_", "-"),
        "timeZone": bytes(QTimeZone.systemTimeZoneId().data()).decode("ascii", "replace"),
        "userAgent": f"mcp-desk/{__version__}",
        "platform": "desktop",
        "deviceCapabilities": {"touch": False, "hover": True},
    }
    if tool is not None:
        tool_info: dict[str, Any] = {"tool": tool.model_dump(by_alias=True, mode="json", exclude_none=True)}
        if call_id is not None:
            tool_info["id"] = call_id
        context["toolInfo"] = tool_info
    return context

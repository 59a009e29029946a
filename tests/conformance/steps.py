"""What the client does once connected, for the scenarios that need more than calling each tool."""

from __future__ import annotations

from typing import Any

from desktop_app.core.connection import ServerConnection


async def drive(connection: ServerConnection, scenario: str, context: dict[str, Any]) -> bool:
    """Play `scenario`'s steps through the app's own paths; False leaves it to the default (call each tool)."""
    del connection, scenario, context
    return False

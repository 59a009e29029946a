"""One MCP server connection: its owner task, each attempt's session, listings, subscriptions and calls.

Imports run one way inside: `owner` → `session` → `subscriptions` → `listings`/`negotiation`,
`owner` → `requests` → `calls`, and `owner` → `confinement` (how it is sandboxed at each start); `server_log`
and `server_claim` (what a server says it is) are below them all. Callers import `ServerConnection` from here.
"""

from desktop_app.core.connection.owner import ServerConnection, TargetFactory

__all__ = ["ServerConnection", "TargetFactory"]

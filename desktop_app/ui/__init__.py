"""Qt widgets of the MCP Desk window; they reach the core only through `bridge.CoreBridge`."""

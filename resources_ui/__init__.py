"""Qt widgets for browsing, viewing and attaching MCP resources."""

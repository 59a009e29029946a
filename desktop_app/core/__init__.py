"""The Qt-free heart of MCP Desk: configuration, the MCP host, the catalog and content handling."""

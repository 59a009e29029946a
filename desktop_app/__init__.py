"""MCP Desk: a desktop host for the Model Context Protocol."""

__version__ = "0.1.0"

"""Signing in to remote servers: OAuth 2.1 as MCP specifies it, built on the SDK's `mcp.client.auth`.

Qt-free: imports the rest of the core at most. The window, the command line and tests supply
the `BrowserOpener`; tokens and registrations live in the secret store, nowhere else.
"""

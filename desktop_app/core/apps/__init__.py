"""MCP Apps (`io.modelcontextprotocol/ui`): what a view may do, checked before Qt ever sees it.

Qt-free: the CSP a view gets, its metadata, the JSON-RPC it speaks and the gateway its requests pass.
Imports the rest of the core at most; the web view itself lives in `desktop_app/ui/apps`.
"""

"""Finding a domain's MCP servers from its Server Cards (SEP-2127): the address a user types, the
well-known catalog, each card, their HTTP cache, and how a card compares with the server it describes.

Qt-free, beside `registry/` on the core's floor (it imports neither `registry/`, `host`, `connection/`
nor `chat/`): it may use `asks/` and the modules directly in `core/`. The window and `mcp-desk
install/search` install a card's remote with the registry's plan and consent, and compare after connecting.
"""

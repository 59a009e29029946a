"""Finding and installing servers: the MCP Registry client and its cache, the `server.json` model,
install plans (the exact command from a package and the user's answers) and `.mcpb` bundles.

Qt-free like the rest of the core: the gallery window and `mcp-desk search/install` both build on it.
"""

from typing import Final

DEFAULT_REGISTRY_URL: Final = "https://registry.modelcontextprotocol.io"

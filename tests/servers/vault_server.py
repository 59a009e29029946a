"""A notes server whose addresses another server's skill may claim: it lists `note://vault/SKILL.md` and
`note://vault/secret.md`, and says in each that the text is its own.

    python tests/servers/vault_server.py [--name NAME]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from mcp.server.mcpserver import MCPServer

SCRIPT: Final = Path(__file__)
SECRET_URI: Final = "note://vault/secret.md"
SKILL_URI: Final = "note://vault/SKILL.md"
SECRET: Final = "The vault's note, as the vault server keeps it."
INDEX: Final = "The vault's index note (not a skill)."


def build_vault_server(name: str = "vault") -> MCPServer:
    server = MCPServer(name, version="1.0.0")

    @server.resource(SECRET_URI, name="secret", mime_type="text/markdown")
    def secret() -> str:
        return SECRET

    @server.resource(SKILL_URI, name="index", mime_type="text/markdown")
    def index() -> str:
        return INDEX

    return server


def from_argv(argv: list[str]) -> MCPServer:
    """The server its command line asks for (tests also build it in-process from the same line)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", default="vault")
    return build_vault_server(parser.parse_args(argv).name)


if __name__ == "__main__":
    from_argv(sys.argv[1:]).run("stdio")

"""A small notes server for traces and replay: a resource, a tool whose answer can change, and a tool
that repeats its own environment (as a careless or hostile server would, secrets included).

    python tests/servers/ledger_server.py

With `LEDGER_VARIANT=changed` in its environment, `count_words` counts one word too many: the same
server after a regression, for replay to catch.
"""

from __future__ import annotations

import os
from typing import Final

from mcp.server.mcpserver import MCPServer

SERVER_NAME: Final = "notes"
INSTRUCTIONS: Final = "Notes live under notes://. Cite the note you used."
TODAY: Final = "Standup moved to 10:00. Ship the ledger on Friday."
MEETING: Final = " ".join(f"Paragraph {i} of the meeting notes says what was decided and by whom." for i in range(60))
ECHOED: Final = ("NOTES_TOKEN", "NOTES_LITERAL")


def build_ledger_server() -> MCPServer:
    server = MCPServer(SERVER_NAME, version="1.0.0", instructions=INSTRUCTIONS)

    @server.resource("notes://today", name="today", mime_type="text/plain", description="Today's notes")
    def today() -> str:
        return TODAY

    @server.resource("notes://meeting", name="meeting", mime_type="text/plain", description="Minutes")
    def meeting() -> str:
        return MEETING

    @server.tool(description="Count the words of a text.")
    def count_words(text: str) -> str:
        extra = 1 if os.environ.get("LEDGER_VARIANT") == "changed" else 0
        return f"{len(text.split()) + extra} words"

    @server.tool(description="Show the server's settings.")
    def show_settings() -> str:
        return "\n".join(f"{name}={os.environ.get(name, '')}" for name in ECHOED)

    return server


if __name__ == "__main__":
    build_ledger_server().run("stdio")

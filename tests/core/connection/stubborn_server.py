"""A stdio server slow to leave: it ignores SIGTERM and, once its stdin closes, says so on stderr and stays
until it is killed, as a server stuck in its own shutdown does. Run as a script."""

from __future__ import annotations

import signal
import sys
import time
from typing import Final

from mcp.server.mcpserver import MCPServer

LINGERING: Final = "stubborn server: stdin closed, staying"


def main() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server = MCPServer("stubborn", version="1.0.0")

    @server.tool()
    def ping() -> str:
        return "pong"

    server.run("stdio")
    print(LINGERING, file=sys.stderr, flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()

"""A stdio MCP server that tells how it was started: its program, arguments and environment.

Packed into hostile bundles, it shows what a manifest really got at connect time: the resource
`launch://report` is JSON with `executable`, `argv` and `env`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Final

from mcp.server.mcpserver import MCPServer

REPORT_URI: Final = "launch://report"


def report() -> str:
    return json.dumps({"executable": sys.executable, "argv": sys.argv, "env": dict(os.environ)})


def main() -> None:
    server = MCPServer("launch-report")
    server.resource(REPORT_URI, name="report", mime_type="application/json")(report)
    server.run()


if __name__ == "__main__":
    main()

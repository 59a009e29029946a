"""A server with one destructive tool, the target of a hostile trace: every call that really runs is written down.

`delete_files` deletes nothing; it appends the path it was given to the marker file, so a test proves
whether (and with which arguments) the tool ran:

    python tests/servers/victim_server.py --marker FILE
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations


def ran_with(marker: Path) -> list[str]:
    """The paths `delete_files` really ran with, in order (none when the marker file does not exist)."""
    return marker.read_text(encoding="utf-8").splitlines() if marker.exists() else []


def build_victim_server(marker: Path) -> MCPServer:
    server = MCPServer("victim", version="1.0.0")

    @server.tool(
        title="Delete files",
        description="Delete every file under `path`. It cannot be undone.",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
    )
    def delete_files(path: str) -> str:
        with marker.open("a", encoding="utf-8") as out:
            out.write(path + "\n")
        return f"Deleted {path}."

    return server


def from_argv(argv: list[str]) -> MCPServer:
    """The server its command line asks for (tests also build it in-process from the same line)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--marker", type=Path, required=True, help="file each call's path is appended to")
    return build_victim_server(parser.parse_args(argv).marker)


if __name__ == "__main__":
    from_argv(sys.argv[1:]).run("stdio")

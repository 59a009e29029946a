"""The demo MCP server MCP Desk runs when nothing is configured, so the app is alive on first launch.

The app imports this package at startup, so only the standard library is imported here; the server
module (and the mcp SDK behind it) loads when the server is actually built or run.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.demo_server.server import DemoServer

__all__ = ["DEMO_SERVER_FLAG", "build_server", "demo_server_command", "main", "run"]

DEMO_SERVER_FLAG = "--demo-server"
"""Frozen builds have no `-m`: the app's own executable serves the demo when given this flag."""


def demo_server_command() -> tuple[str, list[str]]:
    """How to launch the demo server over stdio, from source or from a frozen (PyInstaller) build."""
    if getattr(sys, "frozen", False):
        return sys.executable, [DEMO_SERVER_FLAG]
    return sys.executable, ["-m", "desktop_app.demo_server"]


def build_server() -> DemoServer:
    """A fresh demo server (an `MCPServer`), for in-process use such as tests."""
    from desktop_app.demo_server.server import build_server as build

    return build()


def run() -> None:
    """Serve the demo over stdio until the client closes the pipe."""
    build_server().run("stdio")


def main(argv: list[str]) -> int:
    """`mcp-desk --demo-server`: what a frozen build runs instead of `python -m desktop_app.demo_server`."""
    run()
    return 0

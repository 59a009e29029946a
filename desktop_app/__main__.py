"""`mcp-desk` entry point: the window by default, or a helper mode chosen by flag."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--demo-server"]:
        # A frozen bundle has no `python`: the app's own executable serves the demo over stdio.
        from desktop_app.demo_server import run

        run()
        return 0
    if args[:1] == ["run"]:
        from desktop_app.cli.run import run_command

        return run_command(args[1:])
    if args[:1] == ["search"]:
        from desktop_app.cli.search import search_command

        return search_command(args[1:])
    if args[:1] == ["install"]:
        from desktop_app.cli.install import install_command

        return install_command(args[1:])
    if args[:1] == ["--self-test"]:
        from desktop_app.self_test import run_self_test

        return run_self_test()
    parser = argparse.ArgumentParser(prog="mcp-desk", description="A desktop host for MCP servers.")
    parser.add_argument("--config", type=Path, help="servers.json to use instead of the user's")
    options = parser.parse_args(args)
    from PySide6.QtWidgets import QApplication

    from desktop_app.splash import show_splash

    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    splash = show_splash(app)  # on screen before the heavy imports below
    from desktop_app.app import run_app

    return run_app(app, options.config, splash)


if __name__ == "__main__":
    sys.exit(main())

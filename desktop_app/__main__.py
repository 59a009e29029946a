"""`mcp-desk` entry point: the window by default, or one of the commands in `COMMANDS`.

Each command is one row of the table: the word that selects it, the function that runs it
(imported only when chosen, so the window's start-up pays for none of them) and its help line.
`mcp-desk --help` lists every row.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from desktop_app import __version__

if TYPE_CHECKING:
    import argparse


class Command(NamedTuple):
    word: str
    """What follows `mcp-desk` on the command line: a subcommand (`run`) or a mode flag (`--self-test`)."""
    entry: str
    """`module:function`; the function takes the remaining arguments and returns the exit code."""
    help: str

    def load(self) -> Callable[[list[str]], int]:
        module, _, function = self.entry.partition(":")
        runner: Callable[[list[str]], int] = getattr(importlib.import_module(module), function)
        return runner


COMMANDS: Final = (
    Command("run", "desktop_app.cli.run:run_command", "run one chat turn without a window (mcp-desk run --help)"),
    Command("replay", "desktop_app.cli.replay:replay_command", "play a trace again against live servers and compare"),
    Command("search", "desktop_app.cli.search:search_command", "search the MCP Registry for servers"),
    Command("install", "desktop_app.cli.install:install_command", "add a server from the MCP Registry or an .mcpb"),
    Command("import", "desktop_app.cli.import_servers:import_command", "add the servers of another client's file"),
    Command("export", "desktop_app.cli.export_servers:export_command", "write your servers for another client"),
    Command("login", "desktop_app.cli.login:login_command", "sign in to a remote server (prints the page to open)"),
    Command("logout", "desktop_app.cli.login:logout_command", "sign out of a remote server, revoking its tokens"),
    Command("policy", "desktop_app.cli.policy:policy_command", "print the organisation's policy in force and its file"),
    Command("--self-test", "desktop_app.self_test:main", "check this installation offline and print a report"),
    Command("--demo-server", "desktop_app.demo_server:main", "serve the embedded demo MCP server over stdio"),
    Command(
        "--mupdf-worker", "desktop_app.core.mupdf_process:main", "draw PDF pages for the window (the app starts it)"
    ),
    Command(
        "--token-worker", "desktop_app.core.chat.token_process:main", "count tokens for the window (the app starts it)"
    ),
    Command(
        "--sandbox-forwarder",
        "desktop_app.core.sandbox.forwarder:main",
        "reach a sandboxed server's proxy from inside its sandbox (the app starts it)",
    ),
    Command(
        "--sandbox-landlock",
        "desktop_app.core.sandbox.landlock_launcher:main",
        "confine a sandboxed server with Landlock, then run it (the app starts it)",
    ),
)


def _parser() -> argparse.ArgumentParser:
    import argparse  # only when there are arguments to parse (see main)

    width = max(len(command.word) for command in COMMANDS) + 2
    listing = "\n".join(f"  {command.word:<{width}}{command.help}" for command in COMMANDS)
    parser = argparse.ArgumentParser(
        prog="mcp-desk",
        usage="mcp-desk [--config FILE]\n       mcp-desk COMMAND [ARGS ...]",
        description="A desktop host for MCP servers. With no command, opens the window.",
        epilog=f"commands:\n{listing}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help="servers.json to use instead of the user's")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for command in COMMANDS:
        if args[:1] == [command.word]:
            return command.load()(args[1:])
    # A plain launch skips argparse: building and running the parser loads gettext and locale (~5 ms of CPU
    # before the first paint); anything on the command line is parsed as usual.
    config: Path | None = _parser().parse_args(args).config if args else None
    # Only Qt and small modules until the window is painted: it shows as fast as a bare Qt window.
    from desktop_app.memory import configure_process  # before PySide, whose import hook would read its source

    # isort: split
    from PySide6.QtWidgets import QApplication

    configure_process()  # before the app's own imports: see desktop_app/memory.py
    from desktop_app.core.paths import default_config_path
    from desktop_app.single_instance import claim
    from desktop_app.ui.apps.web_engine import prepare_application
    from desktop_app.ui.shell.application import set_app_icon, set_up_application
    from desktop_app.ui.shell.main_window import MainWindow

    prepare_application()  # MCP App views need this set before the QApplication exists (no import cost)

    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    config = config or default_config_path()
    instance = claim(config)
    if instance is None:
        print(f"MCP Desk is already running with {config}: its window was brought to the front.", file=sys.stderr)
        return 0
    set_up_application(app)
    window = MainWindow()
    window.show_painted()
    set_app_icon(app)  # the frame is painted without it, a few ms sooner; the title bar's icon follows at once
    instance.listen()  # later launches bring this window to the front
    from desktop_app.app import run_app  # asyncio, the event loop, then the core: after the first paint

    return run_app(app, config, instance, window)


if __name__ == "__main__":
    sys.exit(main())

"""`mcp-desk import FILE [--yes]`: add the servers of another client's file (Claude Desktop, Claude Code's
`.mcp.json`, GitHub Copilot's `mcp-config.json`, Cursor, VS Code, or `mcp-desk export`'s) to servers.json,
with the rules the window's Servers → Import follows. The file's shape says how it is read, whatever its name.

An import is an install: the file may come from a cloned repository. So the command first prints,
per new server, the program it would run by absolute path with its arguments (or the address), the
names its environment sets, the trust-granting keys it drops (`TRUST_KEYS`: set them in the server
editor) and why a server is refused (an environment that changes which program runs or what it
loads). Without `--yes` that is all it does: nothing is written. With `--yes` it adds the servers
it printed. What the file holds is printed with its control characters written out.

Exit codes as `run`'s (`entry.py`): 0 done, 1 when a server was refused, 2 for a file that cannot
be read or a servers.json that must be fixed first, 130 interrupted.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Final

from desktop_app.cli.entry import EXIT_FAILED, EXIT_OK, UsageError, error_line, run_main
from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_import import CLIENT_NAMES, ImportedServer, ImportReport, import_servers
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.launch_env import changes_launch
from desktop_app.core.paths import default_config_path
from desktop_app.core.terminal_text import printable

PROG: Final = "mcp-desk import"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Show what importing another client's MCP servers would add; add them with --yes.",
    )
    parser.add_argument(
        "file", type=Path, metavar="FILE", help=".mcp.json, .vscode/mcp.json, claude_desktop_config.json, …"
    )
    parser.add_argument("--yes", action="store_true", help="add the servers shown (default: only show them)")
    parser.add_argument("--config", type=Path, metavar="FILE", help="servers.json to change (default: the user's)")
    parser.add_argument("--debug", action="store_true", help="log to stderr")
    return parser


def import_command(argv: list[str]) -> int:
    return run_main(_parser(), argv, _import, error_line(PROG))


async def _import(args: argparse.Namespace) -> int:
    store = ConfigStore(args.config or default_config_path())
    if store.error is not None:
        raise UsageError(f"fix servers.json first: {store.error}")
    try:
        report = import_servers(store.servers, args.file)
        sys.stdout.write(printable(describe_import(report)) + "\n")
        if args.yes:
            store.add_imported(report)
    except ConfigError as exc:
        raise UsageError(f"nothing was imported: {exc}") from None
    count = len(report.added)
    servers = f"{count} server{'' if count == 1 else 's'}"
    if not count:
        print("Nothing to add.")
    elif args.yes:
        print(f"Added {servers} to {store.path}.")
    else:
        print(f"Nothing was written: run again with --yes to add {servers} to {store.path}.")
    return EXIT_FAILED if report.refused else EXIT_OK


def describe_import(report: ImportReport) -> str:
    """The review as terminal text: per new server what runs, its environment's names, what was dropped."""
    lines = [f"Import from {CLIENT_NAMES[report.kind]}: {report.source}"]
    for name, server in report.new.items():
        lines += _server_lines(name, server)
    lines += report.notes()
    lines += [f"Warning: {warning}" for warning in report.warnings]
    return "\n".join(lines)


def _server_lines(name: str, server: ImportedServer) -> list[str]:
    config = server.config
    verdict = f"refused: {server.refusal}" if server.refusal else "will be added"
    lines = [f"'{name}': {verdict}"]
    if config.is_stdio:
        lines.append(f"  Command: {shlex.join([config.command or '', *config.args])}")
        if server.program_note:
            lines.append(f"  Note: {server.program_note}")
        if config.cwd:
            lines.append(f"  Working folder: {config.cwd}")
    else:
        lines.append(f"  URL: {config.url}")
    if config.env:
        names = (f"{key} (changes what runs)" if changes_launch(key) else key for key in config.env)
        lines.append(f"  Environment: {', '.join(names)}")
    if config.headers:
        lines.append(f"  Headers: {', '.join(config.headers)}")
    if server.dropped:
        lines.append(f"  Dropped: {', '.join(server.dropped)} (set them in the server editor if you mean it)")
    return lines


if __name__ == "__main__":
    sys.exit(import_command(sys.argv[1:]))

"""`mcp-desk export FILE [--format vscode|claude]`: write the user's servers in the shape other clients
read, with the rules the window's Servers → Export… follows (`core/config_export`).

Every secret stays a placeholder (the export reads servers.json, never the secret store); the trust
keys are left out and the command says which. The file is written 0600 and whole or not at all; an
existing file is replaced only with `--force` (it may be a project's `.mcp.json` holding other servers).
Without `--format`, a file in a `.vscode` folder gets VS Code's shape, any other the `mcpServers` shape.

Exit codes as `import`'s: 0 written, 2 for a servers.json that must be fixed first or a file not replaced.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from desktop_app.cli.entry import EXIT_OK, UsageError, error_line, run_main
from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.config_export import EXPORT_FORMATS, ExportFormat, export_servers
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.paths import default_config_path

PROG: Final = "mcp-desk export"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Write your servers for another MCP client; secrets stay placeholders.",
        epilog="formats: " + "; ".join(f"{key}: {words}" for key, words in EXPORT_FORMATS.items()),
    )
    parser.add_argument("file", type=Path, metavar="FILE", help=".mcp.json, .vscode/mcp.json, …")
    parser.add_argument("--format", choices=list(EXPORT_FORMATS), help="default: by the file's folder")
    parser.add_argument("--force", action="store_true", help="replace FILE when it exists")
    parser.add_argument("--config", type=Path, metavar="FILE", help="servers.json to read (default: the user's)")
    parser.add_argument("--debug", action="store_true", help="log to stderr")
    return parser


def export_command(argv: list[str]) -> int:
    return run_main(_parser(), argv, _export, error_line(PROG))


def format_for(path: Path) -> ExportFormat:
    """The shape a file at `path` is read in: VS Code's inside `.vscode`, else `mcpServers`."""
    return "vscode" if path.parent.name == ".vscode" else "claude"


async def _export(args: argparse.Namespace) -> int:
    return _write(args)  # nothing to await: the entry point's loop only carries its exit codes


def _write(args: argparse.Namespace) -> int:
    store = ConfigStore(args.config or default_config_path())
    if store.error is not None:
        raise UsageError(f"fix servers.json first: {store.error}")
    target: Path = args.file
    if target.exists() and not args.force:
        raise UsageError(f"{target} exists: nothing was written (--force replaces it)")
    export_format: ExportFormat = args.format or format_for(target)
    export = export_servers(store.servers, export_format)
    try:
        atomic_write(target, export.text)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    count = len(store.servers)
    print(f"Exported {count} server{'' if count == 1 else 's'} to {target} ({EXPORT_FORMATS[export_format]}).")
    if export.secrets:
        print(f"Secrets left as placeholders, to set in the other client: {', '.join(export.secrets)}")
    if export.withheld:
        print(f"Written into servers.json itself, exported as placeholders: {'; '.join(export.withheld)}")
    if export.left_out:
        print(f"Not exported (this app's own decisions): {', '.join(export.left_out)}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(export_command(sys.argv[1:]))

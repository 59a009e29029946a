"""How `mcp-desk run` and `mcp-desk replay` begin and end, in one place.

Both parse their flags, log only with `--debug`, and turn whatever stops them into an exit code
and one line on stderr: a usage error exits 2, Ctrl+C 130, anything unexpected 1 (with the
traceback only under `--debug`). What a server or the model wrote can reach that line, so it is
printed with its control characters written out (`core/terminal_text`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import traceback
from collections.abc import Callable, Coroutine
from typing import Any, Final

from desktop_app.core.log_routing import install_logging
from desktop_app.core.terminal_text import printable

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 130

Report = Callable[[str], None]
Main = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]


class UsageError(Exception):
    """Bad arguments or configuration: exit 2 with this message."""


def error_line(prog: str) -> Report:
    """Writes one line on stderr, named for `prog`; what servers and the model wrote cannot steer the terminal."""

    def report(message: str) -> None:
        print(f"{prog}: {printable(message)}", file=sys.stderr, flush=True)

    return report


def run_main(parser: argparse.ArgumentParser, argv: list[str], main: Main, report: Report) -> int:
    """Parse `argv` (the parser has `--debug`), run `main` on its own event loop, return the exit code."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage and the error (or the help)
        return EXIT_USAGE if exc.code not in (0, None) else EXIT_OK
    # stdout carries only the answer; libraries' records go to the servers' logs or, with --debug, stderr.
    install_logging(logging.INFO if args.debug else None)
    try:
        return asyncio.run(main(args))
    except UsageError as exc:
        report(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        report("interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:
        if args.debug:
            traceback.print_exc()
        more = "" if args.debug else " (--debug shows the details)"
        report(f"unexpected error: {str(exc) or 'no details'}{more}")
        return EXIT_FAILED

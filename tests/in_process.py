"""The test servers started in the test's own process instead of over stdio, where the process is not the
subject: one Python start and one SDK import (about 0.7 s of CPU) saved per server start.

A configuration is left as the user would write it (`python tests/servers/x.py ARGS`); the host's transport
opener recognises the test servers' command lines and builds the same server in-process from the same
arguments. Everything else (npm peers, HTTP, a server asked to misbehave on its stream or to exit) still
starts its process, a Python test server forked from one that has imported the SDK (`server_forks.py`).
A test whose subject is the process or the stdio transport says so with `@pytest.mark.stdio`, and every
feature keeps at least one such test.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

from desktop_app.core.server_config import ServerConfig
from desktop_app.core.transports import open_transport
from desktop_app.core.watched_streams import TransportHooks
from desktop_app.demo_server import build_server as build_demo_server
from tests.server_forks import DEMO_SERVER, forked, test_server_args


def _from_argv(stem: str, builder: str = "from_argv") -> Callable[[list[str]], object | None]:
    """The server module's `builder`, given the command line's arguments (None: it needs a process)."""

    def build(argv: list[str]) -> object | None:
        server: object | None = getattr(import_module(f"tests.servers.{stem}"), builder)(argv)
        return server

    return build


def _no_arguments(stem: str, builder: str) -> Callable[[list[str]], object | None]:
    """A server module whose command line takes no arguments: its `builder()`, or None if given some."""

    def build(argv: list[str]) -> object | None:
        server: object | None = None if argv else getattr(import_module(f"tests.servers.{stem}"), builder)()
        return server

    return build


BUILDERS: dict[str, Callable[[list[str]], object | None]] = {
    "fixture_server.py": _from_argv("fixture_server", "in_process"),
    "asking_server.py": _no_arguments("asking_server", "build_asking_server"),
    "sampling_abuse_server.py": _no_arguments("sampling_abuse_server", "build_sampling_abuse_server"),
    "ledger_server.py": _no_arguments("ledger_server", "build_ledger_server"),
    "mode_server.py": _no_arguments("mode_server", "build_mode_server"),
    **{
        f"{stem}.py": _from_argv(stem)
        for stem in (
            "skills_server",
            "instructions_server",
            "rug_pull_server",
            "annotated_server",
            "victim_server",
            "vault_server",
            "false_read_only_server",
            "icon_server",
        )
    },
}
"""Each test server that can run in-process, by its script's name: builds it from its arguments."""


def in_process_server(config: ServerConfig) -> object | None:
    """The server `config` would start, built here; None when it needs its own process."""
    args = test_server_args(config)
    if args is None or config.env or config.cwd:  # what the process is given is part of the test
        return None
    if tuple(args) == DEMO_SERVER:
        return build_demo_server()
    first, *rest = args
    builder = BUILDERS.get(Path(first).name)
    return None if builder is None else builder(rest)


def in_process_or_stdio(config: ServerConfig, hooks: TransportHooks) -> Any:
    """The host's transport opener for tests: the test servers in-process, everything else as configured."""
    server = in_process_server(config)
    return forked_stdio(config, hooks) if server is None else server


def forked_stdio(config: ServerConfig, hooks: TransportHooks) -> Any:
    """The host's transport opener for tests over stdio: a Python test server's process is forked."""
    return open_transport(forked(config), hooks)

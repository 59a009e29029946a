"""The test servers started in the test's own process instead of over stdio, where the process is not the
subject: one Python start and one SDK import (about 0.7 s of CPU) saved per server start.

A configuration is left as the user would write it (`python tests/servers/x.py ARGS`); the host's transport
opener recognises the test servers' command lines and builds the same server in-process from the same
arguments. Everything else (npm peers, HTTP, a server asked to misbehave on its stream or to exit) still
starts its process. A test whose subject is the process or the stdio transport says so with
`@pytest.mark.stdio`, and every feature keeps at least one such test.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.transports import open_transport
from desktop_app.core.watched_streams import TransportHooks

SERVERS = Path(__file__).parent / "servers"


def _fixture(argv: list[str]) -> object | None:
    from tests.servers.fixture_server import in_process

    return in_process(argv)


def _no_arguments(build: Callable[[], object]) -> Callable[[list[str]], object | None]:
    return lambda argv: None if argv else build()


def _module_from_argv(stem: str) -> Callable[[list[str]], object | None]:
    def build(argv: list[str]) -> object | None:
        module = __import__(f"tests.servers.{stem}", fromlist=["from_argv"])
        server: object | None = module.from_argv(argv)
        return server

    return build


def _asking() -> object:
    from tests.servers.asking_server import build_asking_server

    return build_asking_server()


def _sampling_abuse() -> object:
    from tests.servers.sampling_abuse_server import build_sampling_abuse_server

    return build_sampling_abuse_server()


def _ledger() -> object:
    from tests.servers.ledger_server import build_ledger_server

    return build_ledger_server()


def _mode() -> object:
    from tests.servers.mode_server import build_mode_server

    return build_mode_server()


def _demo() -> object:
    from desktop_app.demo_server import build_server

    return build_server()


BUILDERS: dict[str, Callable[[list[str]], object | None]] = {
    "fixture_server.py": _fixture,
    "asking_server.py": _no_arguments(_asking),
    "sampling_abuse_server.py": _no_arguments(_sampling_abuse),
    "ledger_server.py": _no_arguments(_ledger),
    "mode_server.py": _no_arguments(_mode),
    **{
        f"{stem}.py": _module_from_argv(stem)
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
    if config.transport is not TransportKind.STDIO or config.command != sys.executable or not config.args:
        return None
    if config.env or config.cwd:
        return None  # what the process is given is part of the test
    first, *rest = config.args
    if first == "-m" and rest == ["desktop_app.demo_server"]:
        return _demo()
    script = Path(first)
    if script.parent != SERVERS or script.name not in BUILDERS:
        return None
    return BUILDERS[script.name](rest)


def in_process_or_stdio(config: ServerConfig, hooks: TransportHooks) -> Any:
    """The host's transport opener for tests: the test servers in-process, everything else as configured."""
    server = in_process_server(config)
    return open_transport(config, hooks) if server is None else server

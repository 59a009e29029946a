"""The first program a Landlock-confined server runs: it confines itself, then becomes the server.

Landlock restricts the process that asks and everything it starts later, so the restriction is made here, in
the server's own process just before exec, never in the app. In order: serve the filtering proxy on a loopback
port (when the entry lists hosts; the relay is started before the restriction, so it alone may reach the app's
proxy socket), set `no_new_privs`, apply the ruleset (TCP connect allowed only to that port where the kernel
filters TCP, bind nowhere), then exec the server with its environment. Any failure ends here, with a line on
stderr: the server never runs unconfined.

Only the standard library and its two neighbours are imported: run from source as a file (isolated, without
`site`), it finds them beside itself.
"""

from __future__ import annotations

import os
import socket
import sys

try:
    from desktop_app.core.sandbox import forwarder, landlock
except ImportError:  # run as a file, isolated: the package is not on the path, its neighbours are
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    import forwarder  # type: ignore[no-redef,import-not-found]
    import landlock  # type: ignore[no-redef,import-not-found]

FLAG = "--sandbox-landlock"
"""`mcp-desk --sandbox-landlock RULES|@FILE -- COMMAND ARGS…` (hidden: the app starts it)."""
CANNOT_CONFINE = 126
"""The exit code when the server could not be confined (and so was not started)."""


def _serve_proxy(socket_path: str) -> int:
    """A loopback port relayed to the proxy's socket by a process outside the restriction: the port."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)
    forwarder.start_relay(listener, socket_path)
    port: int = listener.getsockname()[1]
    listener.close()
    return port


def main(argv: list[str]) -> int:
    """`RULES -- COMMAND ARGS…`: confine this process to RULES (JSON, or `@FILE` holding it), then exec COMMAND."""
    if len(argv) < 3 or argv[1] != "--":
        print(f"usage: {FLAG} RULES -- COMMAND [ARGS…]", file=sys.stderr)
        return 2
    program = argv[2:]
    try:
        text = argv[0]
        if text.startswith("@"):
            with open(text[1:], encoding="utf-8") as file:
                text = file.read()
        rules = landlock.Rules.from_json(text)
        abi = landlock.abi_version()
        environment = dict(rules.environment)
        ports = list(rules.connect_ports)
        if rules.proxy_socket is not None:
            port = _serve_proxy(rules.proxy_socket)
            ports.append(port)
            environment.update(forwarder.proxy_environment(port))
        landlock.restrict_self(landlock.Rules(rules.grants, tuple(ports)), abi)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"sandbox: cannot confine {program[0]} with Landlock, so it was not started: {exc}", file=sys.stderr)
        return CANNOT_CONFINE
    return forwarder.exec_server(program, environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

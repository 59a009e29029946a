"""Inside a sandbox with no network: the proxy on a loopback port, then the server itself.

bubblewrap's network namespace has only its own loopback, and no route out. This is the first program the
sandbox runs: it listens on a port of that loopback, starts a process that relays each connection to the
app's filtering proxy over the Unix socket bound into the sandbox, points the usual proxy variables at the
port, and then becomes the server (exec: same process, same stdin/stdout/stderr, same exit code). The relay
is a child of the sandbox's init, not of the server, and ends with the sandbox.

Only the standard library is imported: this runs before every sandboxed server that may reach a host.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import sys
import threading
from collections.abc import MutableMapping, Sequence

FLAG = "--sandbox-forwarder"
"""`mcp-desk --sandbox-forwarder SOCKET -- COMMAND ARGS…` (hidden: the app starts it inside the sandbox)."""


_CHUNK = 64 * 1024


def proxy_environment(port: int) -> dict[str, str]:
    """What points HTTP clients at the proxy: curl, Python's urllib, requests and httpx read these, npm reads
    HTTP(S)_PROXY, and Node's own fetch does with `NODE_USE_ENV_PROXY` (Node 22.21 and 24.5 on). No host is
    exempt: the sandbox has nothing to reach directly."""
    url = f"http://127.0.0.1:{port}"
    names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
    values = {name: url for upper in names for name in (upper, upper.lower())}
    return {**values, "NO_PROXY": "", "no_proxy": "", "NODE_USE_ENV_PROXY": "1"}


def loader_as_given(environ: MutableMapping[str, str]) -> None:
    """Undo what the frozen bundle's bootloader did to the library path (it keeps the original, if any, in
    `LD_LIBRARY_PATH_ORIG`), so the server gets what it was given, not the bundle's libraries."""
    original = environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is None:
        environ.pop("LD_LIBRARY_PATH", None)
    else:
        environ["LD_LIBRARY_PATH"] = original


def command(socket_inside: str, program: str, args: Sequence[str]) -> list[str]:
    """The command line that runs `program args` behind the forwarder: the bundle's binary with the hidden flag
    when frozen, else this file run by the app's Python, isolated from the entry's PYTHON* variables and without
    `site` (it needs only the standard library; skipping site-packages halves its start)."""
    frozen = getattr(sys, "frozen", False)
    runner = [sys.executable, FLAG] if frozen else [sys.executable, "-I", "-S", os.path.abspath(__file__)]
    return [*runner, socket_inside, "--", program, *args]


def _pipe(source: socket.socket, target: socket.socket) -> None:
    """Copy one direction until its end, passed on as a half-close."""
    with contextlib.suppress(OSError):
        while chunk := source.recv(_CHUNK):
            target.sendall(chunk)
        target.shutdown(socket.SHUT_WR)


def _relay_one(connection: socket.socket, socket_path: str) -> None:
    with connection, socket.socket(socket.AF_UNIX) as upstream:
        try:
            upstream.connect(socket_path)
        except OSError:
            return
        back = threading.Thread(target=_pipe, args=(upstream, connection), daemon=True)
        back.start()
        _pipe(connection, upstream)
        back.join()


def _relay_while(server_pid: int, listener: socket.socket, socket_path: str) -> None:
    """Relay each connection (two threads: cheaper to start than an event loop, and the app's proxy bounds how
    many are open) until the server process ends. The sandbox's end would stop the relay anyway; watching the
    server also holds where the forwarder runs without a PID namespace."""

    def accept() -> None:
        while True:
            connection, _address = listener.accept()
            threading.Thread(target=_relay_one, args=(connection, socket_path), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    select.select([os.pidfd_open(server_pid)], [], [])  # readable once the server has exited


def start_relay(listener: socket.socket, socket_path: str) -> None:
    """Fork twice, so the relay is the sandbox init's child (the server never sees it as its own)."""
    server_pid = os.getpid()  # this process becomes the server
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        return
    try:
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # never hold the server's stdio open, nor write into its log
                os.dup2(null, fd)
            os.setsid()
            _relay_while(server_pid, listener, socket_path)
    finally:
        os._exit(0)


def main(argv: list[str]) -> int:
    """`SOCKET -- COMMAND ARGS…`: serve the proxy on loopback, then exec COMMAND with the proxy variables."""
    if len(argv) < 3 or argv[1] != "--":
        print(f"usage: {FLAG} SOCKET -- COMMAND [ARGS…]", file=sys.stderr)
        return 2
    socket_path, program = argv[0], argv[2:]
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)
    start_relay(listener, socket_path)
    port = listener.getsockname()[1]
    listener.close()
    return exec_server(program, proxy_environment(port))


def exec_server(program: list[str], environment: dict[str, str]) -> int:
    """Become the server, with `environment` added (and, when frozen, the loader's own library path undone);
    only returns, with 127, when the program cannot be run."""
    if getattr(sys, "frozen", False):
        loader_as_given(os.environ)
    os.environ.update(environment)
    try:
        os.execvp(program[0], program)
    except OSError as exc:
        print(f"cannot start {program[0]}: {exc}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Running an ASGI app with uvicorn on a thread of its own, on 127.0.0.1, for the test servers.

A server on its own thread answers whatever the test's event loop is doing (blocked in a Qt
wait, or busy in the code under test).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import uvicorn

LOOPBACK: Final = "127.0.0.1"
START_TIMEOUT_S: Final = 90.0


def bind() -> socket.socket:
    """A socket on an ephemeral loopback port, bound now so its address is known before serving."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((LOOPBACK, 0))
    return sock


@contextmanager
def serving(*apps: tuple[Any, socket.socket]) -> Iterator[None]:
    """Serve each (app, socket) until the block ends; the sockets are closed afterwards."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []
    try:
        for app, sock in apps:
            config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
            server = uvicorn.Server(config)
            thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
            thread.start()
            servers.append((server, thread))
            deadline = time.monotonic() + START_TIMEOUT_S
            while not server.started:
                if time.monotonic() > deadline or not thread.is_alive():
                    raise RuntimeError("a test server did not start")
                time.sleep(0.01)
        yield
    finally:
        for server, _ in servers:
            server.should_exit = True
        for _, thread in servers:
            thread.join(10)
        for _, sock in apps:
            sock.close()

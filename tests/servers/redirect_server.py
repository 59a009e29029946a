"""Two HTTP servers on 127.0.0.1 for redirect attacks: one that sends every request elsewhere, one
that records whatever reaches it (method, path, headers), so a test can see what a redirect leaked.

Both run in threads, so they answer while a test's event loop or a subprocess is the client.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    """What reached a server: one (method, path, headers) per request."""

    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    url: str = ""


def _handler(seen: Seen, status: int, location: str | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            seen.requests.append((self.command, self.path, dict(self.headers.items())))
            self.send_response(status)
            if location is not None:
                self.send_header("Location", location + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def _serving(seen: Seen, status: int, location: str | None) -> Iterator[Seen]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(seen, status, location))
    server.daemon_threads = True
    seen.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="redirect-fixture", daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@contextmanager
def recording_server() -> Iterator[Seen]:
    """Answers 404 to everything and keeps a copy of each request."""
    with _serving(Seen(), 404, None) as seen:
        yield seen


@contextmanager
def redirecting_server(target: str, status: int = 307) -> Iterator[Seen]:
    """Answers every request with `status` to the same path on `target` (another origin)."""
    with _serving(Seen(), status, target) as seen:
        yield seen

"""An MCP Registry on 127.0.0.1 for tests: the v0.1 read API, file downloads and a tiny npm registry.

Endpoints (as in the registry's OpenAPI):
    GET /v0.1/servers?search=&cursor=&limit=&version=latest&updated_since=
    GET /v0.1/servers/{name}/versions
    GET /v0.1/servers/{name}/versions/{version|latest}
plus `GET /files/{name}` (bundles, icons) and `GET /npm/{package}` + `/npm/-/{file}.tgz`, enough for
`npx --registry` to install a package offline. Faults are switches on the object: `down` answers
503, `delay` stalls every answer, `raw` replaces the list's body with broken text.

It runs in a thread, so it answers while a test's event loop is busy or a subprocess is the client.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import tarfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

OFFICIAL = "io.modelcontextprotocol.registry/official"
NPM_PACKAGE_DIR = Path(__file__).parent / "npm_hello"
NPM_PACKAGE_NAME = "@mcp-desk-tests/hello"
NPM_PACKAGE_VERSION = "1.0.0"


def response(
    server: dict[str, Any], *, status: str = "active", latest: bool = True, updated: str = ""
) -> dict[str, Any]:
    """A `ServerResponse` wrapping a `server.json`, with the registry's own `_meta`."""
    stamp = updated or "2026-11-01T10:00:00Z"
    return {
        "server": server,
        "_meta": {
            OFFICIAL: {
                "status": status,
                "publishedAt": "2026-10-01T09:00:00Z",
                "updatedAt": stamp,
                "isLatest": latest,
            }
        },
    }


def npm_tarball(source: Path = NPM_PACKAGE_DIR) -> bytes:
    """The package folder as npm packs it: a gzipped tar whose paths start with `package/`.

    Byte-for-byte the same on every call (no timestamps): npm checks it against the packument's integrity.
    """
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        for path in sorted(source.rglob("*")):
            if path.is_file():
                info = archive.gettarinfo(str(path), arcname=f"package/{path.relative_to(source).as_posix()}")
                info.mtime = 0
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                with path.open("rb") as handle:
                    archive.addfile(info, handle)
    return gzip.compress(tar.getvalue(), mtime=0)


@dataclass
class RegistryFixture:
    """The registry's state; edit `versions` (name -> responses, newest first) and the switches freely."""

    versions: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    down: bool = False
    delay: float = 0.0
    raw: bytes | None = None
    requests: list[str] = field(default_factory=list)
    url: str = ""

    def add(self, *entries: dict[str, Any]) -> None:
        """Add `ServerResponse`s; later versions of the same name go first, as the API orders them."""
        for entry in entries:
            self.versions.setdefault(entry["server"]["name"], []).insert(0, entry)

    def file_url(self, name: str) -> str:
        return f"{self.url}/files/{name}"

    @property
    def npm_url(self) -> str:
        return f"{self.url}/npm"

    # -- the API ---------------------------------------------------------------------------

    def _list(self, query: dict[str, list[str]]) -> tuple[int, Any]:
        search = query.get("search", [""])[0].lower()
        version = query.get("version", [""])[0]
        since = query.get("updated_since", [""])[0]
        rows = [e for versions in self.versions.values() for e in versions]
        if version == "latest":
            rows = [e for e in rows if e["_meta"][OFFICIAL]["isLatest"]]
        elif version:
            rows = [e for e in rows if e["server"]["version"] == version]
        if search:
            rows = [e for e in rows if search in e["server"]["name"].lower()]
        if since:
            rows = [e for e in rows if e["_meta"][OFFICIAL]["updatedAt"] >= since]
        else:
            rows = [e for e in rows if e["_meta"][OFFICIAL]["status"] != "deleted"]
        start = int(query.get("cursor", ["0"])[0] or 0)
        limit = int(query.get("limit", ["30"])[0])
        page = rows[start : start + limit]
        metadata: dict[str, Any] = {"count": len(page)}
        if start + limit < len(rows):
            metadata["nextCursor"] = str(start + limit)
        return 200, {"servers": page, "metadata": metadata}

    def _versions(self, name: str, version: str | None, include_deleted: bool) -> tuple[int, Any]:
        versions = [
            e for e in self.versions.get(name, []) if include_deleted or e["_meta"][OFFICIAL]["status"] != "deleted"
        ]
        if not versions:
            return 404, {"error": "Server not found"}
        if version is None:
            return 200, {"servers": versions, "metadata": {"count": len(versions)}}
        for entry in versions:
            if (version == "latest" and entry["_meta"][OFFICIAL]["isLatest"]) or entry["server"]["version"] == version:
                return 200, entry
        return 404, {"error": "Server version not found"}

    def _npm(self, rest: str) -> tuple[int, Any]:
        tarball = npm_tarball()
        if rest.startswith("-/"):
            return 200, tarball
        if unquote(rest) != NPM_PACKAGE_NAME:
            return 404, {"error": "Not found"}
        manifest = json.loads((NPM_PACKAGE_DIR / "package.json").read_text())
        dist = {
            "tarball": f"{self.npm_url}/-/hello-{NPM_PACKAGE_VERSION}.tgz",
            "shasum": hashlib.sha1(tarball).hexdigest(),
            "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode(),
        }
        return 200, {
            "name": NPM_PACKAGE_NAME,
            "dist-tags": {"latest": NPM_PACKAGE_VERSION},
            "versions": {NPM_PACKAGE_VERSION: {**manifest, "dist": dist}},
        }

    def answer(self, raw_path: str) -> tuple[int, Any]:
        self.requests.append(raw_path)
        parts = urlsplit(raw_path)
        path, query = parts.path, parse_qs(parts.query)
        if self.delay:
            time.sleep(self.delay)
        if path.startswith("/npm/"):
            return self._npm(path[len("/npm/") :])
        if path.startswith("/files/"):
            data = self.files.get(unquote(path[len("/files/") :]))
            return (200, data) if data is not None else (404, {"error": "Not found"})
        if self.down:
            return 503, {"error": "Service unavailable"}
        if path == "/v0.1/servers":
            if self.raw is not None:
                return 200, self.raw
            return self._list(query)
        if path.startswith("/v0.1/servers/"):
            segments = path[len("/v0.1/servers/") :].split("/")
            name = unquote(segments[0])
            if segments[1:2] == ["versions"]:
                deleted = query.get("include_deleted", ["false"])[0] == "true"
                return self._versions(name, unquote(segments[2]) if len(segments) > 2 else None, deleted)
        return 404, {"error": "Not found"}


class _Handler(BaseHTTPRequestHandler):
    fixture: RegistryFixture

    def do_GET(self) -> None:
        try:
            status, body = self.fixture.answer(self.path)
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header(
                "Content-Type", "application/octet-stream" if isinstance(body, bytes) else "application/json"
            )
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def running_registry(fixture: RegistryFixture | None = None) -> Iterator[RegistryFixture]:
    """Serve `fixture` on a free loopback port for the duration of the block."""
    fixture = fixture or RegistryFixture()
    handler = type("Handler", (_Handler,), {"fixture": fixture})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    fixture.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="registry-fixture", daemon=True)
    thread.start()
    try:
        yield fixture
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)

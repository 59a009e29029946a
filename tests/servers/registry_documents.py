"""Real-shaped `server.json` documents (camelCase, `_meta`, the 2025-12-11 schema) and bundles for tests.

They cover what the gallery and installs must handle: npm with arguments and a secret, PyPI, OCI,
a remote with URL variables and headers, an `.mcpb` with its checksum, deprecated and deleted
entries, and documents that break the schema.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

from tests.servers.registry_fixture import NPM_PACKAGE_NAME, NPM_PACKAGE_VERSION, RegistryFixture, response

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
FIXTURE_SCRIPT = Path(__file__).parent / "fixture_server.py"
REPORT_SCRIPT = Path(__file__).parent / "launch_report_server.py"


def png(width: int = 48, height: int = 48, rgb: tuple[int, int, int] = (217, 119, 87)) -> bytes:
    """A real PNG of one colour: icons must render from real image bytes."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


PNG_ICON = png()


def hello(fixture: RegistryFixture, version: str = NPM_PACKAGE_VERSION) -> dict[str, Any]:
    """An npm server (the local package in `npm_hello`), with a positional argument, env vars and a secret."""
    return {
        "$schema": SCHEMA,
        "name": "io.github.mcp-desk-tests/hello",
        "title": "Hello",
        "description": "Greets whoever reads its one resource",
        "version": version,
        "websiteUrl": "https://example.com/hello",
        "repository": {"url": "https://github.com/mcp-desk-tests/hello", "source": "github"},
        "icons": [{"src": fixture.file_url("hello.png"), "mimeType": "image/png", "sizes": ["48x48"]}],
        "packages": [
            {
                "registryType": "npm",
                "registryBaseUrl": fixture.npm_url,
                "identifier": NPM_PACKAGE_NAME,
                "version": NPM_PACKAGE_VERSION,
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "positional", "valueHint": "audience", "description": "Who to greet", "default": "world"}
                ],
                "environmentVariables": [
                    {"name": "HELLO_GREETING", "description": "The greeting word", "default": "hello"},
                    {"name": "HELLO_TOKEN", "description": "An API token", "isRequired": True, "isSecret": True},
                ],
            }
        ],
        "_meta": {"io.modelcontextprotocol.registry/publisher-provided": {"tool": "tests"}},
    }


def weather() -> dict[str, Any]:
    """PyPI, OCI and a remote with URL variables and headers, as the registry's own examples have them."""
    env = [
        {"name": "WEATHER_API_KEY", "description": "API key", "isRequired": True, "isSecret": True},
        {"name": "WEATHER_UNITS", "description": "Units", "default": "celsius", "choices": ["celsius", "fahrenheit"]},
    ]
    return {
        "$schema": SCHEMA,
        "name": "io.github.acme/weather",
        "title": "Weather",
        "description": "Forecasts and current conditions from OpenWeather",
        "version": "0.5.0",
        "repository": {"url": "https://github.com/acme/weather-mcp", "source": "github", "id": "r-123"},
        "packages": [
            {
                "registryType": "pypi",
                "registryBaseUrl": "https://pypi.org",
                "identifier": "weather-mcp-server",
                "version": "0.5.0",
                "runtimeHint": "uvx",
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "named", "name": "--port", "description": "Port", "format": "number"},
                    {"type": "positional", "value": "serve"},
                ],
                "environmentVariables": env,
            },
            {
                "registryType": "oci",
                "identifier": "ghcr.io/acme/weather-mcp:0.5.0",
                "transport": {"type": "stdio"},
                "runtimeArguments": [
                    {
                        "type": "named",
                        "name": "--mount",
                        "value": "type=bind,src={cache_dir},dst=/cache",
                        "variables": {
                            "cache_dir": {"description": "Cache folder", "format": "filepath", "isRequired": True}
                        },
                    }
                ],
                "environmentVariables": env,
            },
        ],
        "remotes": [
            {
                "type": "streamable-http",
                "url": "https://{tenant}.weather.example/mcp",
                "variables": {"tenant": {"description": "Your tenant", "isRequired": True}},
                "headers": [
                    {
                        "name": "Authorization",
                        "value": "Bearer {token}",
                        "variables": {"token": {"description": "Access token", "isRequired": True, "isSecret": True}},
                    },
                    {"name": "X-Region", "default": "eu-west-1", "choices": ["us-east-1", "eu-west-1"]},
                ],
            },
            {"type": "sse", "url": "https://weather.example/sse"},
        ],
    }


def simple(name: str, description: str, version: str = "1.0.0", **extra: Any) -> dict[str, Any]:
    return {"$schema": SCHEMA, "name": name, "description": description, "version": version, **extra}


def manifest(server: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "manifest_version": "0.3",
        "name": "fixture-bundle",
        "display_name": "Fixture bundle",
        "version": "1.0.0",
        "description": "The test fixture server, packaged",
        "author": {"name": "MCP Desk tests"},
        "server": server,
        **extra,
    }


def python_bundle_manifest(**extra: Any) -> dict[str, Any]:
    """The fixture server run by `python`, a sensitive token and a directory option."""
    return manifest(
        {
            "type": "python",
            "entry_point": "server/fixture_server.py",
            "mcp_config": {
                "command": "python",
                "args": ["${__dirname}/server/fixture_server.py", "--secret-echo"],
                "env": {"FIXTURE_TOKEN": "${user_config.token}", "FIXTURE_HOME": "${HOME}"},
            },
        },
        user_config={
            "token": {
                "type": "string",
                "title": "Token",
                "description": "A secret",
                "sensitive": True,
                "required": True,
            },
            "workdir": {"type": "directory", "title": "Work folder", "description": "Where", "default": "${HOME}"},
        },
        tools=[{"name": "echo", "description": "Echo"}],
        **extra,
    )


def build_mcpb(
    manifest_doc: dict[str, Any] | None,
    files: dict[str, bytes] | None = None,
    *,
    modes: dict[str, int] | None = None,
    links: dict[str, str] | None = None,
) -> bytes:
    """A zip as `mcpb pack` makes it; `links` adds symlink members, `modes` sets unix permissions."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if manifest_doc is not None:
            archive.writestr("manifest.json", json.dumps(manifest_doc, indent=2))
        for name, data in (files or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = ((modes or {}).get(name, 0o644) | 0o100000) << 16
            archive.writestr(info, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def fixture_python_bundle() -> bytes:
    return build_mcpb(python_bundle_manifest(), {"server/fixture_server.py": FIXTURE_SCRIPT.read_bytes()})


def fixture_binary_bundle() -> bytes:
    """The fixture server as a `binary` bundle: an executable script with this interpreter's shebang."""
    script = f"#!{sys.executable}\n".encode() + FIXTURE_SCRIPT.read_bytes()
    doc = manifest(
        {"type": "binary", "entry_point": "server/fixture", "mcp_config": {"command": "server/fixture", "args": []}}
    )
    return build_mcpb(doc, {"server/fixture": script}, modes={"server/fixture": 0o644})


def report_bundle(mcp_config: dict[str, Any], files: dict[str, bytes] | None = None, **modes: int) -> bytes:
    """A python bundle whose server reports the argv and environment it got (`launch_report_server`).

    `mcp_config` is the manifest's, written by whoever attacks; `modes` sets members' unix permissions
    (`bin/python3=0o755` as `**{"bin/python3": 0o755}`).
    """
    doc = manifest(
        {"type": "python", "entry_point": "server/report.py", "mcp_config": mcp_config},
        name="report-bundle",
        display_name="Report bundle",
    )
    return build_mcpb(doc, {"server/report.py": REPORT_SCRIPT.read_bytes(), **(files or {})}, modes=modes)


def bundle_entry(fixture: RegistryFixture, data: bytes, *, sha: str | None = None) -> dict[str, Any]:
    """A registry entry whose package is the `.mcpb` served by the fixture (checksum right unless `sha`)."""
    fixture.files["fixture.mcpb"] = data
    return simple(
        "io.github.mcp-desk-tests/fixture-bundle",
        "The fixture server as a bundle",
        packages=[
            {
                "registryType": "mcpb",
                "identifier": fixture.file_url("fixture.mcpb"),
                "version": "1.0.0",
                "fileSha256": sha or hashlib.sha256(data).hexdigest(),
                "transport": {"type": "stdio"},
            }
        ],
    )


def populate(fixture: RegistryFixture) -> None:
    """The catalogue most tests browse: good entries, edge cases and one malformed document."""
    fixture.files["hello.png"] = PNG_ICON
    fixture.add(
        response(hello(fixture, "0.9.0"), latest=False, updated="2026-09-01T10:00:00Z"),
        response(hello(fixture)),
        response(weather()),
        response(
            simple("io.github.acme/old-weather", "The old forecasts", "0.1.0"),
            status="deprecated",
        ),
        response(simple("io.github.acme/gone", "Removed for malware", "6.6.6"), status="deleted"),
        {"server": {"name": "io.github.acme/broken", "version": "1.0.0", "packages": "not a list"}},
    )
    fixture.versions["io.github.acme/old-weather"][0]["_meta"]["io.modelcontextprotocol.registry/official"][
        "statusMessage"
    ] = "Use io.github.acme/weather instead"
    fixture.versions["io.github.acme/broken"][0]["_meta"] = {
        "io.modelcontextprotocol.registry/official": {
            "status": "active",
            "updatedAt": "2026-11-01T10:00:00Z",
            "isLatest": True,
        }
    }

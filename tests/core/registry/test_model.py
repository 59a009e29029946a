"""Reading `server.json` and the v0.1 envelope: every field the installer uses, errors that name the field."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from desktop_app.core.publisher_document import DocumentError
from desktop_app.core.registry.model import parse_entry, parse_server
from tests.servers.registry_documents import simple, weather
from tests.servers.registry_fixture import response


def test_weather_document_reads_whole() -> None:
    entry = parse_entry(response(weather(), status="deprecated"))
    server = entry.server
    assert (server.name, server.title, server.version) == ("io.github.acme/weather", "Weather", "0.5.0")
    assert server.repository is not None and server.repository.id == "r-123"
    pypi, oci = server.packages
    assert (pypi.registry_type, pypi.identifier, pypi.version, pypi.runtime_hint) == (
        "pypi",
        "weather-mcp-server",
        "0.5.0",
        "uvx",
    )
    assert pypi.package_arguments[0].type == "named" and pypi.package_arguments[0].format == "number"
    key, units = pypi.environment_variables
    assert key.is_secret and key.is_required and units.choices == ("celsius", "fahrenheit")
    assert oci.version is None and oci.runtime_arguments[0].variables["cache_dir"].format == "filepath"
    remote, sse = server.remotes
    assert remote.type == "streamable-http" and remote.variables["tenant"].is_required
    assert remote.headers[0].variables["token"].is_secret and remote.headers[1].default == "eu-west-1"
    assert sse.type == "sse"
    assert entry.official.status == "deprecated" and entry.official.updated_at == "2026-11-01T10:00:00Z"
    assert server.display_name == "Weather"


def test_defaults_for_sparse_documents() -> None:
    server = parse_server(simple("io.github.x/just-a-name", "Nothing else"))
    assert server.packages == () and server.remotes == () and server.icons == () and server.title is None
    assert server.display_name == "just-a-name"
    entry = parse_entry({"server": simple("io.github.x/y", "Y")})  # no registry _meta at all
    assert entry.official.status == "active" and entry.official.is_latest is None


def _broken(path: list[Any], value: Any) -> dict[str, Any]:
    document = copy.deepcopy(response(weather()))
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return document


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["server", "name"], ..., "server.name is missing"),
        (["server", "name"], "no-slash", "server.name must look like namespace/name"),
        (["server", "version"], 3, "server.version must be a non-empty string"),
        (["server", "packages"], {}, "server.packages must be a list"),
        (["server", "packages", 0, "identifier"], ..., r"server.packages\[0\].identifier is missing"),
        (["server", "packages", 0, "fileSha256"], "ABC", r"server.packages\[0\].fileSha256 must be 64"),
        (["server", "packages", 0, "transport", "type"], "carrier-pigeon", r"transport.type must be one of"),
        (["server", "packages", 0, "packageArguments", 0, "type"], "flag", r"packageArguments\[0\].type must be"),
        (["server", "packages", 0, "packageArguments", 0, "name"], ..., r"packageArguments\[0\].name is missing"),
        (["server", "packages", 0, "environmentVariables", 0, "isSecret"], "yes", r"isSecret must be true or false"),
        (["server", "packages", 0, "environmentVariables", 1, "format"], "colour", r"\[1\].format must be one of"),
        (["server", "remotes", 0, "url"], ..., r"server.remotes\[0\].url is missing"),
        (["server", "remotes", 0, "type"], "stdio", r"server.remotes\[0\].type must be one of streamable-http, sse"),
        (["_meta", "io.modelcontextprotocol.registry/official", "status"], "gone", "status must be one of"),
        (["server"], ..., "server must be an object"),
    ],
)
def test_malformed_documents_name_the_field(path: list[Any], value: Any, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        parse_entry(_broken(path, value))


def test_positional_needs_a_value_or_hint() -> None:
    document = _broken(["server", "packages", 0, "packageArguments", 1, "value"], ...)
    with pytest.raises(DocumentError, match=r"packageArguments\[1\] needs a value or a valueHint"):
        parse_entry(document)


def test_stdio_is_implicit_in_older_documents() -> None:
    document = _broken(["server", "packages", 0, "transport"], ...)
    assert parse_entry(document).server.packages[0].transport.type == "stdio"

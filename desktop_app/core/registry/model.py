"""The registry's `server.json` and its v0.1 response envelope, read strictly enough to install from.

Field names and shapes follow the registry's OpenAPI (`ServerResponse`, `ServerDetail`, `Package`,
`RemoteTransport`, `Input`, `Argument`, `KeyValueInput`); the parts a Server Card shares (inputs,
remotes, icons, repository) are read by `core/publisher_document`. A document that does not match
raises `DocumentError` naming the field, so a broken entry is reported, never half-installed.
Unknown fields are ignored: registries add them over time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from desktop_app.core.publisher_document import (
    REMOTE_TRANSPORTS,
    DocumentError,
    Icon,
    Input,
    KeyValue,
    Repository,
    Transport,
    as_object,
    flag,
    input_fields,
    items,
    optional_text,
    parse_icon,
    parse_key_value,
    parse_repository,
    parse_transport,
    required_text,
    where,
)

OFFICIAL_META: Final = "io.modelcontextprotocol.registry/official"
STATUSES: Final = ("active", "deprecated", "deleted")
PACKAGE_TRANSPORTS: Final = ("stdio", "streamable-http", "sse")

Status = Literal["active", "deprecated", "deleted"]


@dataclass(frozen=True, kw_only=True)
class Argument(Input):
    """A command-line argument: `positional` (a value) or `named` (a flag, maybe with a value)."""

    type: Literal["positional", "named"]
    name: str | None = None
    value_hint: str | None = None
    is_repeated: bool = False


@dataclass(frozen=True, kw_only=True)
class Package:
    """One way to run the server locally (npm, pypi, oci, mcpb, nuget, …)."""

    registry_type: str
    identifier: str
    transport: Transport
    version: str | None = None
    registry_base_url: str | None = None
    file_sha256: str | None = None
    runtime_hint: str | None = None
    runtime_arguments: tuple[Argument, ...] = ()
    package_arguments: tuple[Argument, ...] = ()
    environment_variables: tuple[KeyValue, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ServerDetail:
    """`ServerDetail`: what the publisher says about one version of a server."""

    name: str
    description: str
    version: str
    title: str | None = None
    website_url: str | None = None
    repository: Repository | None = None
    icons: tuple[Icon, ...] = ()
    packages: tuple[Package, ...] = ()
    remotes: tuple[Transport, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def display_name(self) -> str:
        return self.title or self.name.rpartition("/")[2] or self.name


@dataclass(frozen=True, kw_only=True)
class RegistryMeta:
    """What the registry itself says about the entry (`_meta["io.modelcontextprotocol.registry/official"]`)."""

    status: Status = "active"
    status_message: str | None = None
    published_at: str | None = None
    updated_at: str | None = None
    is_latest: bool | None = None


@dataclass(frozen=True, kw_only=True)
class ServerEntry:
    """One `ServerResponse`: the server plus the registry's metadata; `raw` is kept for the cache."""

    server: ServerDetail
    official: RegistryMeta = field(default_factory=RegistryMeta)
    raw: Mapping[str, Any] = field(default_factory=dict)


# --- reading ---------------------------------------------------------------------------------


def parse_argument(value: object, path: str) -> Argument:
    data = as_object(value, path)
    kind = data.get("type")
    if kind not in ("positional", "named"):
        raise DocumentError(f'{where(path, "type")} must be "positional" or "named"')
    name = required_text(data, "name", path) if kind == "named" else optional_text(data, "name", path)
    hint = optional_text(data, "valueHint", path)
    if kind == "positional" and hint is None and data.get("value") is None:
        raise DocumentError(f"{path} needs a value or a valueHint")
    return Argument(
        type=kind, name=name, value_hint=hint, is_repeated=flag(data, "isRepeated", path), **input_fields(data, path)
    )


def parse_package(value: object, path: str) -> Package:
    data = as_object(value, path)
    transport = data.get("transport", {"type": "stdio"})  # older documents leave stdio implicit
    sha = optional_text(data, "fileSha256", path)
    if sha is not None and (len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha)):
        raise DocumentError(f"{where(path, 'fileSha256')} must be 64 lowercase hex digits")

    def arguments(key: str) -> tuple[Argument, ...]:
        return tuple(parse_argument(a, where(where(path, key), i)) for i, a in enumerate(items(data, key, path)))

    return Package(
        registry_type=required_text(data, "registryType", path),
        identifier=required_text(data, "identifier", path),
        transport=parse_transport(transport, where(path, "transport"), allowed=PACKAGE_TRANSPORTS),
        version=optional_text(data, "version", path),
        registry_base_url=optional_text(data, "registryBaseUrl", path),
        file_sha256=sha,
        runtime_hint=optional_text(data, "runtimeHint", path),
        runtime_arguments=arguments("runtimeArguments"),
        package_arguments=arguments("packageArguments"),
        environment_variables=tuple(
            parse_key_value(e, where(where(path, "environmentVariables"), i))
            for i, e in enumerate(items(data, "environmentVariables", path))
        ),
    )


def parse_server(value: object, path: str = "server") -> ServerDetail:
    """A `ServerDetail` (the publisher's `server.json`)."""
    data = as_object(value, path)
    repository = data.get("repository")
    name = required_text(data, "name", path)
    if name.count("/") != 1:
        raise DocumentError(f"{where(path, 'name')} must look like namespace/name, not {name!r}")
    meta = data.get("_meta") or {}
    return ServerDetail(
        name=name,
        description=required_text(data, "description", path),
        version=required_text(data, "version", path),
        title=optional_text(data, "title", path),
        website_url=optional_text(data, "websiteUrl", path),
        repository=None if repository is None else parse_repository(repository, where(path, "repository")),
        icons=tuple(parse_icon(i, where(where(path, "icons"), n)) for n, i in enumerate(items(data, "icons", path))),
        packages=tuple(
            parse_package(p, where(where(path, "packages"), n)) for n, p in enumerate(items(data, "packages", path))
        ),
        remotes=tuple(
            parse_transport(r, where(where(path, "remotes"), n), allowed=REMOTE_TRANSPORTS)
            for n, r in enumerate(items(data, "remotes", path))
        ),
        meta=as_object(meta, where(path, "_meta")),
    )


def parse_entry(value: object, path: str = "") -> ServerEntry:
    """One `ServerResponse`: `{"server": {...}, "_meta": {"io.modelcontextprotocol.registry/official": {...}}}`."""
    data = as_object(value, path)
    server = parse_server(data.get("server"), where(path, "server"))
    meta = as_object(data.get("_meta") or {}, where(path, "_meta"))
    official_path = where(where(path, "_meta"), OFFICIAL_META)
    official = as_object(meta.get(OFFICIAL_META) or {}, official_path)
    status = official.get("status", "active")
    if status not in STATUSES:
        raise DocumentError(f"{where(official_path, 'status')} must be one of {', '.join(STATUSES)}")
    latest = official.get("isLatest")
    if latest is not None and not isinstance(latest, bool):
        raise DocumentError(f"{where(official_path, 'isLatest')} must be true or false")
    return ServerEntry(
        server=server,
        official=RegistryMeta(
            status=status,
            status_message=optional_text(official, "statusMessage", official_path),
            published_at=optional_text(official, "publishedAt", official_path),
            updated_at=optional_text(official, "updatedAt", official_path),
            is_latest=latest,
        ),
        raw=data,
    )

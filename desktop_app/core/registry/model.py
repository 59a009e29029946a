"""The registry's `server.json` and its v0.1 response envelope, read strictly enough to install from.

Field names and shapes follow the registry's OpenAPI (`ServerResponse`, `ServerDetail`, `Package`,
`RemoteTransport`, `Input`, `Argument`, `KeyValueInput`). A document that does not match raises
`ServerJsonError` naming the field, so a broken entry is reported, never half-installed.
Unknown fields are ignored: registries add them over time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

OFFICIAL_META: Final = "io.modelcontextprotocol.registry/official"
STATUSES: Final = ("active", "deprecated", "deleted")
INPUT_FORMATS: Final = ("string", "number", "boolean", "filepath")
PACKAGE_TRANSPORTS: Final = ("stdio", "streamable-http", "sse")
REMOTE_TRANSPORTS: Final = ("streamable-http", "sse")

Status = Literal["active", "deprecated", "deleted"]


class ServerJsonError(ValueError):
    """A `server.json` (or registry response) that does not match the format; says where."""


@dataclass(frozen=True, kw_only=True)
class Input:
    """A value the user may be asked for (`Input` in the schema); `value` set means fixed."""

    description: str = ""
    is_required: bool = False
    format: str = "string"
    value: str | None = None
    is_secret: bool = False
    default: str | None = None
    placeholder: str | None = None
    choices: tuple[str, ...] = ()
    variables: Mapping[str, Input] = field(default_factory=dict)
    """`{name}` placeholders inside `value`, each an input of its own."""


@dataclass(frozen=True, kw_only=True)
class Argument(Input):
    """A command-line argument: `positional` (a value) or `named` (a flag, maybe with a value)."""

    type: Literal["positional", "named"]
    name: str | None = None
    value_hint: str | None = None
    is_repeated: bool = False


@dataclass(frozen=True, kw_only=True)
class KeyValue(Input):
    """An environment variable or an HTTP header."""

    name: str


@dataclass(frozen=True, kw_only=True)
class Transport:
    """How to talk to the server: stdio, or a URL (template) with headers and, for remotes, variables."""

    type: str
    url: str | None = None
    headers: tuple[KeyValue, ...] = ()
    variables: Mapping[str, Input] = field(default_factory=dict)


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
class Icon:
    src: str
    mime_type: str | None = None
    sizes: tuple[str, ...] = ()
    theme: str | None = None


@dataclass(frozen=True, kw_only=True)
class Repository:
    url: str
    source: str
    id: str | None = None
    subfolder: str | None = None


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


def _where(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key


def _obj(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ServerJsonError(f"{path or 'the document'} must be an object")
    return value


def _req(data: Mapping[str, Any], key: str, path: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        problem = "is missing" if value is None else "must be a non-empty string"
        raise ServerJsonError(f"{_where(path, key)} {problem}")
    return value


def _opt(data: Mapping[str, Any], key: str, path: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ServerJsonError(f"{_where(path, key)} must be a string")
    return value


def _bool(data: Mapping[str, Any], key: str, path: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ServerJsonError(f"{_where(path, key)} must be true or false")
    return value


def _list(data: Mapping[str, Any], key: str, path: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ServerJsonError(f"{_where(path, key)} must be a list")
    return value


def _strings(data: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    items = _list(data, key, path)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise ServerJsonError(f"{_where(_where(path, key), index)} must be a string")
    return tuple(items)


def _input_fields(data: Mapping[str, Any], path: str) -> dict[str, Any]:
    fmt = data.get("format", "string")
    if fmt not in INPUT_FORMATS:
        raise ServerJsonError(f"{_where(path, 'format')} must be one of {', '.join(INPUT_FORMATS)}")
    variables = data.get("variables") or {}
    var_path = _where(path, "variables")
    return {
        "description": _opt(data, "description", path) or "",
        "is_required": _bool(data, "isRequired", path),
        "format": fmt,
        "value": _opt(data, "value", path),
        "is_secret": _bool(data, "isSecret", path),
        "default": _opt(data, "default", path),
        "placeholder": _opt(data, "placeholder", path),
        "choices": _strings(data, "choices", path),
        "variables": {
            name: parse_input(spec, _where(var_path, name)) for name, spec in _obj(variables, var_path).items()
        },
    }


def parse_input(value: object, path: str) -> Input:
    return Input(**_input_fields(_obj(value, path), path))


def parse_argument(value: object, path: str) -> Argument:
    data = _obj(value, path)
    kind = data.get("type")
    if kind not in ("positional", "named"):
        raise ServerJsonError(f'{_where(path, "type")} must be "positional" or "named"')
    name = _req(data, "name", path) if kind == "named" else _opt(data, "name", path)
    hint = _opt(data, "valueHint", path)
    if kind == "positional" and hint is None and data.get("value") is None:
        raise ServerJsonError(f"{path} needs a value or a valueHint")
    return Argument(
        type=kind, name=name, value_hint=hint, is_repeated=_bool(data, "isRepeated", path), **_input_fields(data, path)
    )


def parse_key_value(value: object, path: str) -> KeyValue:
    data = _obj(value, path)
    return KeyValue(name=_req(data, "name", path), **_input_fields(data, path))


def parse_transport(value: object, path: str, *, allowed: tuple[str, ...]) -> Transport:
    data = _obj(value, path)
    kind = data.get("type")
    if kind not in allowed:
        raise ServerJsonError(f"{_where(path, 'type')} must be one of {', '.join(allowed)}")
    url = _req(data, "url", path) if kind != "stdio" else _opt(data, "url", path)
    variables = data.get("variables") or {}
    var_path = _where(path, "variables")
    return Transport(
        type=kind,
        url=url,
        headers=tuple(
            parse_key_value(h, _where(_where(path, "headers"), i)) for i, h in enumerate(_list(data, "headers", path))
        ),
        variables={n: parse_input(s, _where(var_path, n)) for n, s in _obj(variables, var_path).items()},
    )


def parse_package(value: object, path: str) -> Package:
    data = _obj(value, path)
    transport = data.get("transport", {"type": "stdio"})  # older documents leave stdio implicit
    sha = _opt(data, "fileSha256", path)
    if sha is not None and (len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha)):
        raise ServerJsonError(f"{_where(path, 'fileSha256')} must be 64 lowercase hex digits")

    def arguments(key: str) -> tuple[Argument, ...]:
        return tuple(parse_argument(a, _where(_where(path, key), i)) for i, a in enumerate(_list(data, key, path)))

    return Package(
        registry_type=_req(data, "registryType", path),
        identifier=_req(data, "identifier", path),
        transport=parse_transport(transport, _where(path, "transport"), allowed=PACKAGE_TRANSPORTS),
        version=_opt(data, "version", path),
        registry_base_url=_opt(data, "registryBaseUrl", path),
        file_sha256=sha,
        runtime_hint=_opt(data, "runtimeHint", path),
        runtime_arguments=arguments("runtimeArguments"),
        package_arguments=arguments("packageArguments"),
        environment_variables=tuple(
            parse_key_value(e, _where(_where(path, "environmentVariables"), i))
            for i, e in enumerate(_list(data, "environmentVariables", path))
        ),
    )


def parse_icon(value: object, path: str) -> Icon:
    data = _obj(value, path)
    return Icon(
        src=_req(data, "src", path),
        mime_type=_opt(data, "mimeType", path),
        sizes=_strings(data, "sizes", path),
        theme=_opt(data, "theme", path),
    )


def parse_server(value: object, path: str = "server") -> ServerDetail:
    """A `ServerDetail` (the publisher's `server.json`)."""
    data = _obj(value, path)
    repository = data.get("repository")
    repo: Repository | None = None
    if repository is not None:
        repo_path = _where(path, "repository")
        repo_data = _obj(repository, repo_path)
        repo = Repository(
            url=_req(repo_data, "url", repo_path),
            source=_opt(repo_data, "source", repo_path) or "",
            id=_opt(repo_data, "id", repo_path),
            subfolder=_opt(repo_data, "subfolder", repo_path),
        )
    name = _req(data, "name", path)
    if name.count("/") != 1:
        raise ServerJsonError(f"{_where(path, 'name')} must look like namespace/name, not {name!r}")
    meta = data.get("_meta") or {}
    return ServerDetail(
        name=name,
        description=_req(data, "description", path),
        version=_req(data, "version", path),
        title=_opt(data, "title", path),
        website_url=_opt(data, "websiteUrl", path),
        repository=repo,
        icons=tuple(parse_icon(i, _where(_where(path, "icons"), n)) for n, i in enumerate(_list(data, "icons", path))),
        packages=tuple(
            parse_package(p, _where(_where(path, "packages"), n)) for n, p in enumerate(_list(data, "packages", path))
        ),
        remotes=tuple(
            parse_transport(r, _where(_where(path, "remotes"), n), allowed=REMOTE_TRANSPORTS)
            for n, r in enumerate(_list(data, "remotes", path))
        ),
        meta=_obj(meta, _where(path, "_meta")),
    )


def parse_entry(value: object, path: str = "") -> ServerEntry:
    """One `ServerResponse`: `{"server": {...}, "_meta": {"io.modelcontextprotocol.registry/official": {...}}}`."""
    data = _obj(value, path)
    server = parse_server(data.get("server"), _where(path, "server"))
    meta = _obj(data.get("_meta") or {}, _where(path, "_meta"))
    official_path = _where(_where(path, "_meta"), OFFICIAL_META)
    official = _obj(meta.get(OFFICIAL_META) or {}, official_path)
    status = official.get("status", "active")
    if status not in STATUSES:
        raise ServerJsonError(f"{_where(official_path, 'status')} must be one of {', '.join(STATUSES)}")
    latest = official.get("isLatest")
    if latest is not None and not isinstance(latest, bool):
        raise ServerJsonError(f"{_where(official_path, 'isLatest')} must be true or false")
    return ServerEntry(
        server=server,
        official=RegistryMeta(
            status=status,
            status_message=_opt(official, "statusMessage", official_path),
            published_at=_opt(official, "publishedAt", official_path),
            updated_at=_opt(official, "updatedAt", official_path),
            is_latest=latest,
        ),
        raw=data,
    )

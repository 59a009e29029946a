"""What a publisher writes about a server that the registry's `server.json` and a Server Card share:
the values a server asks for (`Input`, `KeyValue`), its remote endpoints (`Transport`), its icons and
its source repository, read strictly enough to install from.

Field names follow the registry's OpenAPI and the Server Card schema, which took these shapes from
it. A document that does not match raises `DocumentError` naming the field, so a broken one is
reported, never half-installed. Unknown fields are ignored: both formats add them over time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

INPUT_FORMATS: Final = ("string", "number", "boolean", "filepath")
REMOTE_TRANSPORTS: Final = ("streamable-http", "sse")


class DocumentError(ValueError):
    """A publisher's document (or a registry or domain answer) that does not match its format; says where."""


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
    supported_protocol_versions: tuple[str, ...] = ()
    """What a Server Card says the endpoint speaks (advisory)."""


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


# --- reading ---------------------------------------------------------------------------------


def where(path: str, key: str | int) -> str:
    """`path.key` or `path[index]`: how an error names the field."""
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key


def as_object(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise DocumentError(f"{path or 'the document'} must be an object")
    return value


def required_text(data: Mapping[str, Any], key: str, path: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        problem = "is missing" if value is None else "must be a non-empty string"
        raise DocumentError(f"{where(path, key)} {problem}")
    return value


def optional_text(data: Mapping[str, Any], key: str, path: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise DocumentError(f"{where(path, key)} must be a string")
    return value


def flag(data: Mapping[str, Any], key: str, path: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise DocumentError(f"{where(path, key)} must be true or false")
    return value


def items(data: Mapping[str, Any], key: str, path: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DocumentError(f"{where(path, key)} must be a list")
    return value


def texts(data: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    values = items(data, key, path)
    for index, item in enumerate(values):
        if not isinstance(item, str):
            raise DocumentError(f"{where(where(path, key), index)} must be a string")
    return tuple(values)


def input_fields(data: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The `Input` fields of `data`, as keyword arguments (subclasses add their own)."""
    fmt = data.get("format", "string")
    if fmt not in INPUT_FORMATS:
        raise DocumentError(f"{where(path, 'format')} must be one of {', '.join(INPUT_FORMATS)}")
    var_path = where(path, "variables")
    return {
        "description": optional_text(data, "description", path) or "",
        "is_required": flag(data, "isRequired", path),
        "format": fmt,
        "value": optional_text(data, "value", path),
        "is_secret": flag(data, "isSecret", path),
        "default": optional_text(data, "default", path),
        "placeholder": optional_text(data, "placeholder", path),
        "choices": texts(data, "choices", path),
        "variables": _variables(data, var_path),
    }


def _variables(data: Mapping[str, Any], path: str) -> dict[str, Input]:
    variables = as_object(data.get("variables") or {}, path)
    return {name: parse_input(spec, where(path, name)) for name, spec in variables.items()}


def parse_input(value: object, path: str) -> Input:
    return Input(**input_fields(as_object(value, path), path))


def parse_key_value(value: object, path: str) -> KeyValue:
    data = as_object(value, path)
    return KeyValue(name=required_text(data, "name", path), **input_fields(data, path))


def parse_transport(value: object, path: str, *, allowed: tuple[str, ...]) -> Transport:
    data = as_object(value, path)
    kind = data.get("type")
    if kind not in allowed:
        raise DocumentError(f"{where(path, 'type')} must be one of {', '.join(allowed)}")
    url = required_text(data, "url", path) if kind != "stdio" else optional_text(data, "url", path)
    headers = items(data, "headers", path)
    return Transport(
        type=kind,
        url=url,
        headers=tuple(parse_key_value(h, where(where(path, "headers"), i)) for i, h in enumerate(headers)),
        variables=_variables(data, where(path, "variables")),
        supported_protocol_versions=texts(data, "supportedProtocolVersions", path),
    )


def parse_icon(value: object, path: str) -> Icon:
    data = as_object(value, path)
    return Icon(
        src=required_text(data, "src", path),
        mime_type=optional_text(data, "mimeType", path),
        sizes=texts(data, "sizes", path),
        theme=optional_text(data, "theme", path),
    )


def parse_repository(value: object, path: str) -> Repository:
    data = as_object(value, path)
    return Repository(
        url=required_text(data, "url", path),
        source=optional_text(data, "source", path) or "",
        id=optional_text(data, "id", path),
        subfolder=optional_text(data, "subfolder", path),
    )

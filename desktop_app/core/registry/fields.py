"""The questions an install asks: one `Field` per value a package, remote or bundle leaves open.

The gallery draws its form from these and `mcp-desk install --set KEY=VALUE` answers them by
`key`, so both ask exactly the same things. Fixed values (`value` without `{variables}`) are
never asked: the publisher decided them, and the consent step shows them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from desktop_app.core.publisher_document import Input, KeyValue, Transport
from desktop_app.core.registry.model import Argument, Package

FieldKind = Literal["argument", "env", "header", "variable", "option"]
Answers = Mapping[str, tuple[str, ...]]
"""What the user gave, by field key; a repeated field may hold several values, others one."""


@dataclass(frozen=True)
class Field:
    """One value to ask for, in the shape every front end can draw."""

    key: str
    label: str
    kind: FieldKind
    description: str = ""
    required: bool = False
    secret: bool = False
    default: str | None = None
    choices: tuple[str, ...] = ()
    format: str = "string"
    """string, number, boolean, filepath (registry) or directory, file (bundles)."""
    placeholder: str | None = None
    repeated: bool = False


def _field(key: str, label: str, kind: FieldKind, spec: Input, *, repeated: bool = False) -> Field:
    return Field(
        key=key,
        label=label,
        kind=kind,
        description=spec.description,
        required=spec.is_required,
        secret=spec.is_secret,
        default=spec.default,
        choices=spec.choices,
        format=spec.format,
        placeholder=spec.placeholder,
        repeated=repeated,
    )


def argument_key(argument: Argument) -> str:
    """How an argument is named in forms and `--set`: its valueHint, else its flag name."""
    return argument.value_hint or argument.name or "value"


def _variables(spec: Input) -> Iterator[Field]:
    for name, variable in spec.variables.items():
        yield _field(name, name, "variable", variable)


def _argument_fields(arguments: Iterable[Argument]) -> Iterator[Field]:
    for argument in arguments:
        if argument.value is not None:
            yield from _variables(argument)
        else:
            key = argument_key(argument)
            label = argument.name if argument.type == "named" and argument.name else key
            yield _field(key, label or key, "argument", argument, repeated=argument.is_repeated)


def _key_value_fields(items: Iterable[KeyValue], kind: FieldKind) -> Iterator[Field]:
    for item in items:
        if item.value is not None:
            yield from _variables(item)
        else:
            yield _field(item.name, item.name, kind, item)


def _unique(fields: Iterable[Field]) -> list[Field]:
    """The same key asked twice (a variable shared by two arguments) is one question."""
    seen: dict[str, Field] = {}
    for item in fields:
        seen.setdefault(item.key, item)
    return list(seen.values())


def package_fields(package: Package) -> list[Field]:
    """Runtime arguments, package arguments, then environment variables, in declaration order."""
    return _unique(
        [
            *_argument_fields(package.runtime_arguments),
            *_argument_fields(package.package_arguments),
            *_key_value_fields(package.environment_variables, "env"),
        ]
    )


def remote_fields(remote: Transport) -> list[Field]:
    """URL variables first (they say where), then headers."""
    return _unique(
        [
            *(_field(name, name, "variable", spec) for name, spec in remote.variables.items()),
            *_key_value_fields(remote.headers, "header"),
        ]
    )

"""A server entry's `sandboxEnabled` and `sandbox` keys, in VS Code's spelling so entries copy across.

They only narrow what a server may do, so an import keeps them. Each path must be absolute (or start
with `~/` or a `${VAR}` resolved at start); a domain is a bare host name, `*.` allowed in front.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from desktop_app.core.config_error import KeyPath, schema_error

_FILESYSTEM_KEYS: Final[Mapping[str, str]] = {
    "allowWrite": "allow_write",
    "denyRead": "deny_read",
    "denyWrite": "deny_write",
}
_NETWORK_KEYS: Final[Mapping[str, str]] = {"allowedDomains": "allowed_domains", "deniedDomains": "denied_domains"}
_SECTIONS: Final[Mapping[str, Mapping[str, str]]] = {"filesystem": _FILESYSTEM_KEYS, "network": _NETWORK_KEYS}
_DOMAIN_RE: Final = re.compile(
    r"(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*"
)


@dataclass(frozen=True)
class SandboxSettings:
    """The `sandbox` object: what a sandboxed server may write, must not read or write, and may reach."""

    allow_write: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    deny_write: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    denied_domains: tuple[str, ...] = ()

    def map_paths(self, fn: Callable[[str, str], str]) -> SandboxSettings:
        """Apply `fn(field label, path)` to every path (placeholder expansion at start)."""

        def mapped(key: str) -> tuple[str, ...]:
            return tuple(
                fn(f"sandbox.filesystem.{key}[{i}]", p) for i, p in enumerate(getattr(self, _FILESYSTEM_KEYS[key]))
            )

        return replace(self, **{_FILESYSTEM_KEYS[key]: mapped(key) for key in _FILESYSTEM_KEYS})


def _strings(value: object, path: KeyPath) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise schema_error(path, "must be a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise schema_error((*path, index), "must be a non-empty string")
    return tuple(value)


def _path(text: str, path: KeyPath) -> str:
    if "${secret:" in text:
        raise schema_error(path, "cannot hold a secret (${secret:…}): a path is not secret")
    if text.startswith(("/", "~/", "${")) or text == "~":
        return text
    raise schema_error(path, "must be an absolute path (or start with ~/ or ${VAR})")


def _domain(text: str, path: KeyPath) -> str:
    if "://" in text:
        raise schema_error(path, "must be a domain name without a scheme (api.example.com, not https://…)")
    if "/" in text or ":" in text:
        raise schema_error(path, "must be a domain name without a path or port")
    if not _DOMAIN_RE.fullmatch(text):
        raise schema_error(path, "must be a domain name, optionally starting with *. (*.example.com)")
    return text.lower()


def sandbox_from_dict(value: object, at: KeyPath) -> SandboxSettings:
    """The `sandbox` object, every key checked; raises `ConfigError` naming the field."""
    if not isinstance(value, dict):
        raise schema_error(at, "must be an object with filesystem and network")
    fields: dict[str, Any] = {}
    for section, section_value in value.items():
        keys = _SECTIONS.get(section)
        if keys is None:
            raise schema_error((*at, section), "is not a sandbox setting (known: filesystem, network)")
        if not isinstance(section_value, dict):
            raise schema_error((*at, section), "must be an object")
        for key, item in section_value.items():
            where = (*at, section, key)
            if key not in keys:
                raise schema_error(where, f"is not a sandbox {section} setting (known: {', '.join(keys)})")
            check = _path if section == "filesystem" else _domain
            fields[keys[key]] = tuple(check(text, (*where, i)) for i, text in enumerate(_strings(item, where)))
    return SandboxSettings(**fields)


def sandbox_to_dict(settings: SandboxSettings) -> dict[str, Any]:
    """The JSON spelling, empty lists and sections left out."""
    out: dict[str, Any] = {}
    for section, keys in _SECTIONS.items():
        part = {key: list(getattr(settings, name)) for key, name in keys.items() if getattr(settings, name)}
        if part:
            out[section] = part
    return out

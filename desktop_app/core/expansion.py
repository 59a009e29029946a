"""`${VAR}` and `${secret:NAME}` placeholders, resolved only at connect time.

Keeping placeholders in `servers.json` means secrets live in the keyring, not in a file that users
share or paste into bug reports; the resolved values are returned so the host can redact them.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from desktop_app.core.config_error import ConfigError
from desktop_app.core.log_redaction import remember_secrets
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_entry import SERVERS_KEY

SECRET_PREFIX: Final = "secret:"
SECRET_NAME_RE: Final = re.compile(r"[A-Za-z0-9_.-]+")
_VAR_NAME_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `$${` is an escaped literal `${`; a `${` without `}` is reported rather than passed on silently.
_TOKEN_RE: Final = re.compile(r"\$\$\{|\$\{([^}]*)\}|\$\{")
REDACTED: Final = "***"
_MIN_REDACT_LEN: Final = 4


class SecretLookup(Protocol):
    """Anything that can look a secret up by name (`SecretStore` does)."""

    def get(self, name: str) -> str | None: ...


class ExpansionError(ConfigError):
    """A placeholder that cannot be resolved; names server, field and placeholder, never a value."""

    def __init__(self, message: str, *, server: str, field: str, name: str) -> None:
        super().__init__(message, field=f"{SERVERS_KEY}.{server}.{field}")
        self.server = server
        self.name = name


class MissingSecretError(ExpansionError):
    """`${secret:NAME}` refers to a secret that is not in the store."""


class UnsetVariableError(ExpansionError):
    """`${VAR}` refers to an environment variable that is not set."""


@dataclass(frozen=True)
class ResolvedServer:
    """A server ready to connect: placeholders replaced, plus the secret values to redact from output."""

    config: ServerConfig
    secret_values: frozenset[str]


def is_secret_name(name: str) -> bool:
    """Whether `name` can be used in `${secret:NAME}`."""
    return SECRET_NAME_RE.fullmatch(name) is not None


def secret_placeholder(name: str) -> str:
    """The text that refers to secret `name` in a config value."""
    if not is_secret_name(name):
        raise ValueError(f"invalid secret name {name!r}: use letters, digits, '_', '-' or '.'")
    return "${" + SECRET_PREFIX + name + "}"


def literal(text: str) -> str:
    """Config text that expands to exactly `text`: each `${` written as `$${`, so nothing in it is a
    placeholder (text a bundle or registry publisher wrote must never name a secret or variable)."""
    return text.replace("${", "$${")


def _secret_names_in(text: str) -> Iterator[str]:
    for match in _TOKEN_RE.finditer(text):
        inner = match.group(1) or ""
        name = inner[len(SECRET_PREFIX) :]
        if inner.startswith(SECRET_PREFIX) and is_secret_name(name):
            yield name


def placeholders(cfg: ServerConfig) -> set[str]:
    """Names of the secrets `cfg` refers to, so the UI can ask for the missing ones up front."""
    names: set[str] = set()

    def collect(_field: str, text: str) -> str:
        names.update(_secret_names_in(text))
        return text

    _map_fields(cfg, collect)
    return names


def missing_secrets(cfg: ServerConfig, secrets: SecretLookup) -> list[str]:
    """The referenced secrets that `secrets` does not have, sorted."""
    return sorted(name for name in placeholders(cfg) if secrets.get(name) is None)


def resolve_server(
    cfg: ServerConfig, secrets: SecretLookup, environ: Mapping[str, str] | None = None
) -> ResolvedServer:
    """Expand every placeholder in `cfg`; raises `ExpansionError` for the first one that cannot be.

    `environ` defaults to the process environment (tests pass their own).
    """
    environ = os.environ if environ is None else environ
    used: set[str] = set()

    def expand(field: str, text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            token, inner = match.group(0), match.group(1)
            if token == "$${":
                return "${"
            if inner is None:
                raise ExpansionError(
                    f"server {cfg.name!r}: {field} has a '${{' without a closing '}}'"
                    " (write '$${' for a literal '${')",
                    server=cfg.name,
                    field=field,
                    name="",
                )
            if inner.startswith(SECRET_PREFIX):
                return lookup_secret(field, inner[len(SECRET_PREFIX) :])
            if _VAR_NAME_RE.fullmatch(inner) is None:
                raise ExpansionError(
                    f"server {cfg.name!r}: {field} has an invalid placeholder '${{{inner}}}'",
                    server=cfg.name,
                    field=field,
                    name=inner,
                )
            value = environ.get(inner)
            if value is None:
                raise UnsetVariableError(
                    f"server {cfg.name!r}: {field} uses environment variable {inner}, which is not set",
                    server=cfg.name,
                    field=field,
                    name=inner,
                )
            return value

        return _TOKEN_RE.sub(replace, text)

    def lookup_secret(field: str, name: str) -> str:
        if not is_secret_name(name):
            raise ExpansionError(
                f"server {cfg.name!r}: {field} has an invalid secret name {name!r}",
                server=cfg.name,
                field=field,
                name=name,
            )
        value = secrets.get(name)
        if value is None:
            raise MissingSecretError(
                f"server {cfg.name!r}: {field} uses secret {name!r}, which is not stored yet",
                server=cfg.name,
                field=field,
                name=name,
            )
        used.add(value)
        return value

    resolved = _map_fields(cfg, expand)
    remember_secrets(used)  # from now on no log line shows them, whatever library logs it
    return ResolvedServer(config=resolved, secret_values=frozenset(used))


def _map_fields(cfg: ServerConfig, fn: Callable[[str, str], str]) -> ServerConfig:
    """Apply `fn(field label, text)` to every expandable value: the one list of such fields."""

    def optional(label: str, text: str | None) -> str | None:
        return None if text is None else fn(label, text)

    oauth = cfg.oauth
    if oauth is not None:
        oauth = dataclasses.replace(
            oauth,
            client_id=optional("oauth.clientId", oauth.client_id),
            client_secret=optional("oauth.clientSecret", oauth.client_secret),
            private_key=optional("oauth.privateKey", oauth.private_key),
            issuer=optional("oauth.issuer", oauth.issuer),
        )
    return dataclasses.replace(
        cfg,
        command=None if cfg.command is None else fn("command", cfg.command),
        args=tuple(fn(f"args[{i}]", a) for i, a in enumerate(cfg.args)),
        env={k: fn(f"env.{k}", v) for k, v in cfg.env.items()},
        cwd=None if cfg.cwd is None else fn("cwd", cfg.cwd),
        url=None if cfg.url is None else fn("url", cfg.url),
        headers={k: fn(f"headers.{k}", v) for k, v in cfg.headers.items()},
        oauth=oauth,
        sandbox=None if cfg.sandbox is None else cfg.sandbox.map_paths(fn),
    )


def redact(text: str, secret_values: Iterable[str]) -> str:
    """Replace each secret (4 characters or longer; shorter ones would mangle ordinary text) with ***."""
    values = sorted({v for v in secret_values if len(v) >= _MIN_REDACT_LEN}, key=len, reverse=True)
    if not values:
        return text
    return re.sub("|".join(re.escape(v) for v in values), REDACTED, text)

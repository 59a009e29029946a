"""What a trace or an export of this chat masks, gathered for the scrubber, and the names it masks.

Masked: the provider's API key; for each configured server, the stored secrets it uses
(`${secret:…}`), the values of its environment and headers whose name says credential (`GITHUB_TOKEN`,
`Authorization`, `X-Api-Key`) or whose shape does (`ghp_…`, a JWT, a long random-looking word, also
after `${VAR}` is put in), a URL's password, its OAuth client secret and key and the tokens its
sign-in left in the secret store; and the process's variables named like credentials (providers read
their keys from them). The rest of a server's environment and headers is not masked: `MODE=deleted`
would otherwise turn every "deleted" the model read into `***`, and a replay would compare masks.

The names (never the values) head each turn's trace, so a reader knows what `***` may stand for.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Final
from urllib.parse import urlsplit

from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.expansion import SECRET_PREFIX, ExpansionError, placeholders, resolve_server
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.log_redaction import MIN_SECRET_LENGTH, is_credential_name, looks_like_credential
from desktop_app.core.server_config import ServerConfig

log = logging.getLogger(__name__)
_VARIABLE: Final = re.compile(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
API_KEY_NAME: Final = "the model's API key"


class _NoSecrets:
    def get(self, name: str) -> str | None:
        return None


def _fields(config: ServerConfig) -> Iterator[tuple[str, str, str]]:
    """(label, name, value) of each environment variable and header `config` hands its server."""
    for name, value in config.env.items():
        yield f"env {name}", name, value
    for name, value in config.headers.items():
        yield f"header {name}", name, value


def _is_credential(name: str, raw: str, environ: Mapping[str, str]) -> bool:
    """Whether a field as written in the config holds a credential: a stored secret, a name (its own
    or its `${VAR}`'s) that says credential, or a value shaped like one once its variables are put in."""
    if "${" + SECRET_PREFIX in raw:
        return True
    variables = _VARIABLE.findall(raw)
    if is_credential_name(name) or any(is_credential_name(variable) for variable in variables):
        return True
    return looks_like_credential(_with_variables(raw, environ))


def _with_variables(raw: str, environ: Mapping[str, str]) -> str:
    """`raw` with its `${VAR}`s put in (stored secrets stay placeholders: reading them is not cheap)."""
    return _VARIABLE.sub(lambda m: environ.get(m.group(1), ""), raw)


def _url_password(value: str) -> str | None:
    with contextlib.suppress(ValueError):
        if "://" in value:
            return urlsplit(value.strip()).password
    return None


def server_names(config: ServerConfig, environ: Mapping[str, str]) -> list[str]:
    """What of `config` is masked, by name (reads the config only: cheap enough for the event loop)."""
    names = [label for label, name, raw in _fields(config) if _is_credential(name, raw, environ)]
    names += [
        f"{label} (its password)" for label, _, raw in _fields(config) if _url_password(_with_variables(raw, environ))
    ]
    names += [f"stored secret {name}" for name in sorted(placeholders(config))]
    if config.url and _url_password(config.url):
        names.append("URL password")
    if config.oauth is not None and config.oauth.client_secret:
        names.append("OAuth client secret")
    if config.oauth is not None and config.oauth.private_key:
        names.append("OAuth private key")
    if config.url:
        names.append("sign-in tokens")
    return [f"{config.name}: {name}" for name in names]


def server_values(config: ServerConfig, host: ServerHost, environ: Mapping[str, str]) -> set[str]:
    """The values behind `server_names`: resolved, so this reads the secret store."""
    resolved = None
    with contextlib.suppress(ExpansionError):  # a placeholder that cannot be resolved never reached the server
        resolved = resolve_server(config, host.secrets or _NoSecrets(), environ)
    values: set[str] = set() if resolved is None else set(resolved.secret_values)
    actual = config if resolved is None else resolved.config
    for (_, name, raw), (_, _, value) in zip(_fields(config), _fields(actual), strict=True):
        if "${" in value:
            continue  # still a placeholder: the server never got this value
        if _is_credential(name, raw, environ):
            values.add(value)
            values.update(value.split()[1:])  # the credential of "Bearer xyz"
        if password := _url_password(value):
            values.add(password)
    if actual.url and (password := _url_password(actual.url)):
        values.add(password)
    if actual.oauth is not None:
        values.update(v for v in (actual.oauth.client_secret, actual.oauth.private_key) if v and "${" not in v)
    return values


def oauth_values(credentials: CredentialStore, url: str) -> set[str]:
    try:
        record = credentials.load(url)
    except Exception as exc:  # a locked or broken store: the shapes still catch bearer tokens
        log.info("cannot read the sign-in of %s to scrub it: %s", url, exc)
        return set()
    if record is None:
        return set()
    values: set[str] = set()
    if record.tokens is not None:
        values.update(v for v in (record.tokens.access_token, record.tokens.refresh_token) if v)
    if record.client is not None and record.client.client_secret:
        values.add(record.client.client_secret)
    return values


def masked_names(host: ServerHost, api_key: str | None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The names of everything `scrubber_for` masks, never a value."""
    environ = os.environ if environ is None else environ
    names = [API_KEY_NAME] if api_key else []
    for connection in list(host.connections.values()):
        names += server_names(connection.config, environ)
    names += sorted(f"environment {name}" for name, value in environ.items() if _environment_secret(name, value))
    return names


def scrubber_for(host: ServerHost, api_key: str | None, environ: Mapping[str, str] | None = None) -> Scrubber:
    """A scrubber for everything this host's servers and this model key could leak into a trace."""
    environ = os.environ if environ is None else environ
    values: set[str] = {api_key} if api_key else set()
    for connection in list(host.connections.values()):
        config = connection.config
        values |= server_values(config, host, environ)
        if config.url:
            values |= oauth_values(host.sign_in.credentials, config.url)
    values.update(value for name, value in environ.items() if _environment_secret(name, value))
    return Scrubber(values)


def _environment_secret(name: str, value: str) -> bool:
    """A process variable named like a credential, long enough to be one (shorter values are never masked)."""
    return len(value) >= MIN_SECRET_LENGTH and is_credential_name(name)


class SecretsInUse:
    """The scrubber of a turn, made the first time something is written (in a worker thread: it reads
    the secret store), never on the way to the first token; its names are read from the config alone."""

    def __init__(self, host: ServerHost, api_key: str | None) -> None:
        self._host = host
        self._api_key = api_key
        self._lock = threading.Lock()
        self._made: Scrubber | None = None

    def names(self) -> list[str]:
        """What this turn's traces mask, by name."""
        return masked_names(self._host, self._api_key)

    def __call__(self) -> Scrubber:
        with self._lock:
            if self._made is None:
                self._made = scrubber_for(self._host, self._api_key)
            return self._made

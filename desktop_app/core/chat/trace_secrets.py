"""Every secret a trace or an export of this chat might repeat, gathered for the scrubber.

The provider's API key; for each configured server, every value its environment and headers get
(literal or from `${secret:…}` and `${VAR}`), its OAuth client secret and the tokens its sign-in
left in the secret store; and the process's variables named like credentials (providers read
their keys from them).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Mapping

from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.expansion import ExpansionError, resolve_server
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.server_config import ServerConfig

log = logging.getLogger(__name__)
_CREDENTIAL_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH")


class _NoSecrets:
    def get(self, name: str) -> str | None:
        return None


def server_values(config: ServerConfig, host: ServerHost, environ: Mapping[str, str]) -> set[str]:
    """What `config` hands its server that may be secret: environment and header values, OAuth secrets."""
    configs = [config]
    with contextlib.suppress(ExpansionError):  # a placeholder that cannot be resolved never reached the server
        configs.append(resolve_server(config, host.secrets or _NoSecrets(), environ).config)
    values: set[str] = set()
    for each in configs:
        values.update(each.env.values())
        values.update(each.headers.values())
        for header in each.headers.values():
            values.update(header.split()[1:])  # the credential of "Bearer xyz"
        if each.oauth is not None:
            values.update(v for v in (each.oauth.client_secret, each.oauth.private_key) if v)
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


def scrubber_for(host: ServerHost, api_key: str | None, environ: Mapping[str, str] | None = None) -> Scrubber:
    """A scrubber for everything this host's servers and this model key could leak into a trace."""
    environ = os.environ if environ is None else environ
    values: set[str] = {api_key} if api_key else set()
    for connection in list(host.connections.values()):
        config = connection.config
        values |= server_values(config, host, environ)
        if config.url:
            values |= oauth_values(host.sign_in.credentials, config.url)
    values.update(value for name, value in environ.items() if any(word in name.upper() for word in _CREDENTIAL_WORDS))
    return Scrubber(values)


class SecretsInUse:
    """The scrubber of a turn, made the first time something is written (in a worker thread: it reads
    the secret store), never on the way to the first token."""

    def __init__(self, host: ServerHost, api_key: str | None) -> None:
        self._host = host
        self._api_key = api_key
        self._lock = threading.Lock()
        self._made: Scrubber | None = None

    def __call__(self) -> Scrubber:
        with self._lock:
            if self._made is None:
                self._made = scrubber_for(self._host, self._api_key)
            return self._made

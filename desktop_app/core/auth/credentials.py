"""Tokens and client registrations, kept in the secret store and nowhere else.

One secret per server URL (`oauth.<digest>`) holds a JSON record bound to the issuer that
issued its contents: tokens and their expiry, a dynamic registration, the discovered
metadata a refresh needs after a restart, and the DPoP key the tokens are bound to (`dpop`).
Nothing here is ever written to `servers.json`, a log, the history or a transcript. Without a
writable store, records live in memory only, for this session.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol, runtime_checkable

from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken, ProtectedResourceMetadata
from mcp.shared.auth_utils import resource_url_from_server_url
from pydantic import ValidationError

log = logging.getLogger(__name__)

SECRET_PREFIX: Final = "oauth."
RENEW_MARGIN_S: Final = 60.0
"""Renew this long before a token expires (at most a fifth of its lifetime)."""


@runtime_checkable
class SecretKeeper(Protocol):
    """A secret store that can be written (`SecretStore` is one)."""

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...


@dataclass(frozen=True)
class AuthRecord:
    """What one sign-in to one server left behind."""

    server_url: str
    issuer: str | None = None
    tokens: OAuthToken | None = None
    expires_at: float | None = None
    """When the access token expires (seconds since the epoch); None when the server did not say."""
    client: OAuthClientInformationFull | None = None
    """A dynamic registration or Client ID Metadata Document client; pre-registered clients stay in the config."""
    metadata: OAuthMetadata | None = None
    resource_metadata: ProtectedResourceMetadata | None = None
    dpop_key: str | None = field(default=None, repr=False)
    """The private key (a JWK) this server's token requests are proved with (DPoP); kept only here."""
    dpop_bound: bool = False
    """The access token is DPoP-bound: it goes out as `DPoP <token>` with a proof, never as a bearer token."""

    @property
    def renew_at(self) -> float | None:
        """When to refresh: shortly before expiry, so a request never goes out with a dying token."""
        if self.expires_at is None:
            return None
        lifetime = self.tokens.expires_in if self.tokens and self.tokens.expires_in else RENEW_MARGIN_S * 5
        return self.expires_at - min(RENEW_MARGIN_S, lifetime / 5)

    def with_tokens(self, tokens: OAuthToken | None, *, dpop_bound: bool = False) -> AuthRecord:
        expires_at = None
        if tokens is not None and tokens.expires_in is not None:
            expires_at = time.time() + int(tokens.expires_in)
        return replace(self, tokens=tokens, expires_at=expires_at, dpop_bound=dpop_bound and tokens is not None)

    def to_json(self) -> str:
        def dump(model: Any) -> Any:
            return None if model is None else model.model_dump(mode="json", exclude_none=True)

        return json.dumps(
            {
                "server_url": self.server_url,
                "issuer": self.issuer,
                "tokens": dump(self.tokens),
                "expires_at": self.expires_at,
                "client": dump(self.client),
                "metadata": dump(self.metadata),
                "resource_metadata": dump(self.resource_metadata),
                "dpop_key": self.dpop_key,
                "dpop_bound": self.dpop_bound,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> AuthRecord:
        """Raises ValueError for a damaged record."""
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("server_url"), str):
            raise ValueError("not a sign-in record")

        def load(model: Any, key: str) -> Any:
            value = data.get(key)
            return None if value is None else model.model_validate(value)

        try:
            expires_at = data.get("expires_at")
            return cls(
                server_url=data["server_url"],
                issuer=data.get("issuer") if isinstance(data.get("issuer"), str) else None,
                tokens=load(OAuthToken, "tokens"),
                expires_at=float(expires_at) if isinstance(expires_at, int | float) else None,
                client=load(OAuthClientInformationFull, "client"),
                metadata=load(OAuthMetadata, "metadata"),
                resource_metadata=load(ProtectedResourceMetadata, "resource_metadata"),
                dpop_key=data.get("dpop_key") if isinstance(data.get("dpop_key"), str) else None,
                dpop_bound=data.get("dpop_bound") is True,
            )
        except ValidationError as exc:
            raise ValueError(f"damaged sign-in record: {exc.error_count()} invalid fields") from None


def secret_name(server_url: str) -> str:
    """The secret that holds `server_url`'s record (the URL in canonical form, hashed: names stay short)."""
    digest = hashlib.sha256(resource_url_from_server_url(server_url).encode()).hexdigest()
    return SECRET_PREFIX + digest[:32]


class CredentialStore:
    """Sign-in records by server URL, in whatever secret store is current (it can change: unlocked, moved)."""

    def __init__(self, secrets: Callable[[], object | None]) -> None:
        self._secrets = secrets
        self._memory: dict[str, str] = {}

    @property
    def persistent(self) -> bool:
        """Whether records outlive this session."""
        return isinstance(self._secrets(), SecretKeeper)

    def load(self, server_url: str) -> AuthRecord | None:
        name = secret_name(server_url)
        text = self.read(name)
        if not text:
            return None
        try:
            record = AuthRecord.from_json(text)
        except ValueError as exc:
            log.warning("ignoring the stored sign-in for %s: %s", server_url, exc)
            return None
        return record if secret_name(record.server_url) == name else None

    def save(self, record: AuthRecord) -> None:
        """Store the whole record in one write (raises `SecretStoreError` when the store refuses)."""
        self.write(secret_name(record.server_url), record.to_json())

    def forget(self, server_url: str) -> None:
        self.erase(secret_name(server_url))

    # -- any sign-in secret (an identity provider's ID token too) --------------------------

    def read(self, name: str) -> str | None:
        store = self._secrets()
        return store.get(name) if isinstance(store, SecretKeeper) else self._memory.get(name)

    def write(self, name: str, value: str) -> None:
        store = self._secrets()
        if isinstance(store, SecretKeeper):
            store.set(name, value)
        else:
            self._memory[name] = value

    def erase(self, name: str) -> None:
        self._memory.pop(name, None)
        store = self._secrets()
        if isinstance(store, SecretKeeper):
            store.delete(name)

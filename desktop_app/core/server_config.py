"""One configured MCP server, as the user wrote it (before `${...}` expansion)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from desktop_app.core.sandbox.settings import SandboxSettings

DEFAULT_TIMEOUT_S: Final = 30.0
PROTOCOL_MODES: Final = ("auto", "legacy", "2026-07-28")
JWT_BEARER_GRANT: Final = "jwt-bearer"
OAUTH_GRANTS: Final = ("authorization_code", "client_credentials", "enterprise", JWT_BEARER_GRANT)
"""`enterprise`: the organisation's identity provider signs the user in once (SEP-990, `core/auth/enterprise.py`);
`jwt-bearer`: a JWT the platform issued to this workload is the grant (SEP-1933, `core/auth/workload.py`)."""
TOKEN_ENDPOINT_AUTH_METHODS: Final = ("client_secret_basic", "client_secret_post", "private_key_jwt", "none")
JWT_SIGNING_ALGORITHMS: Final = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")
LOG_LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""MCP's log levels, least severe first."""


class TransportKind(StrEnum):
    STDIO = "stdio"
    HTTP = "http"
    SSE = "sse"


@dataclass(frozen=True)
class OAuthSettings:
    """A remote server's `"oauth"` entry: how MCP Desk identifies itself when signing in.

    Everything is optional: without it a server that answers 401 gets the standard discovery,
    a Client ID Metadata Document where the authorization server supports one, else dynamic
    registration. `client_id` (and `client_secret`, usually `${secret:NAME}`) is a client the
    user registered beforehand; `grant="client_credentials"` signs in as that client itself,
    with a secret or a private key (`private_key_jwt`), and never opens a browser; so does
    `grant="jwt-bearer"`, with the JWT its platform issued it, read afresh from `assertion_file` or
    the environment variable `assertion_env` at each token request.
    """

    enabled: bool = True
    """False (written `"oauth": false`): never sign in; a 401 is an ordinary failure."""
    client_id: str | None = None
    client_secret: str | None = None
    scopes: tuple[str, ...] = ()
    grant: str = "authorization_code"
    token_endpoint_auth_method: str | None = None
    """None: negotiated from the authorization server's metadata."""
    private_key: str | None = None
    """PEM private key for `private_key_jwt`: client credentials, or a browser sign-in whose client (pre-registered
    or its metadata document) authenticates with it."""
    signing_algorithm: str = "RS256"
    issuer: str | None = None
    """The authorization server the pre-registered client belongs to; its credentials go nowhere else."""
    client_metadata_url: str | None = None
    """This server's Client ID Metadata Document URL (overrides the app-wide setting)."""
    callback_port: int | None = None
    """A fixed loopback port for the redirect (for clients registered with one exact redirect URI)."""
    assertion_file: str | None = None
    """`jwt-bearer`: the file the platform keeps this workload's JWT in (it may rotate it)."""
    assertion_env: str | None = None
    """`jwt-bearer`: the environment variable holding this workload's JWT."""

    @property
    def machine_to_machine(self) -> bool:
        """Signs in as itself, without the user or a browser (client credentials, a workload's JWT)."""
        return self.grant in ("client_credentials", JWT_BEARER_GRANT)


@dataclass(frozen=True)
class ServerConfig:
    """A server entry in the Claude Desktop `mcpServers` shape, plus MCP Desk's own options.

    Values may still hold `${VAR}` and `${secret:NAME}` placeholders; they are resolved at
    connect time so secrets never sit in this object longer than a connection attempt needs.
    """

    name: str
    transport: TransportKind
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    protocol: str = "auto"
    timeout: float = DEFAULT_TIMEOUT_S
    origin: dict[str, str] = field(default_factory=dict)
    """Where an installed server came from (registry, name, version, package; a bundle's folder)."""
    oauth: OAuthSettings | None = None
    """Sign-in options for a remote server; None means the defaults (sign in when asked to)."""
    trusted: bool = False
    """The user trusts this server: its tool annotations count, its content does not taint a chat."""
    auto_approve_read_only: bool = False
    """Its read-only tools run without asking (only while it is trusted)."""
    roots: tuple[str, ...] | None = None
    """Folders (paths or file:// URIs) the server may work in; None uses the app's default roots."""
    log_level: str | None = None
    """The least severe log message the server should send (`LOG_LEVELS`); None is the app's default."""
    disabled_tools: tuple[str, ...] = ()
    """Tools the user switched off: never offered to the model nor callable by its app views."""
    sandbox_enabled: bool = False
    """A local server runs confined (`core/sandbox`); it never starts unconfined instead."""
    sandbox: SandboxSettings | None = None
    """The entry's `sandbox` object (kept even while `sandbox_enabled` is off, as VS Code keeps it)."""

    @property
    def is_stdio(self) -> bool:
        return self.transport is TransportKind.STDIO

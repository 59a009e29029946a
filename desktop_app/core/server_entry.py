"""One server's entry in Claude Desktop's `mcpServers` shape, read strictly and written back short.

Users copy entries between clients and hand-edit them, so every value is checked and an error names
the field; keys this app does not know are kept verbatim when the file is rewritten.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final

from desktop_app.core.config_error import ConfigError, KeyPath, schema_error
from desktop_app.core.root_paths import root_problem
from desktop_app.core.sandbox.settings import sandbox_from_dict, sandbox_to_dict
from desktop_app.core.server_config import (
    DEFAULT_TIMEOUT_S,
    JWT_BEARER_GRANT,
    JWT_SIGNING_ALGORITHMS,
    LOG_LEVELS,
    OAUTH_GRANTS,
    PROTOCOL_MODES,
    TOKEN_ENDPOINT_AUTH_METHODS,
    OAuthSettings,
    ServerConfig,
    TransportKind,
)

SERVERS_KEY: Final = "mcpServers"
"""The key under which Claude Desktop's shape keeps the entries, by name."""

# `type` spellings seen in the wild; several clients write streamable HTTP differently.
_TYPE_ALIASES: Final[Mapping[str, TransportKind]] = {
    "stdio": TransportKind.STDIO,
    "http": TransportKind.HTTP,
    "streamable-http": TransportKind.HTTP,
    "streamableHttp": TransportKind.HTTP,
    "sse": TransportKind.SSE,
}
_STDIO_KEYS: Final = ("command", "args", "env", "cwd")
_SANDBOX_KEYS: Final = ("sandboxEnabled", "sandbox")
"""VS Code's keys: they only narrow a local server's rights, so an import keeps them."""
_REMOTE_KEYS: Final = ("url", "headers", "oauth")
# Everything we read; other per-server keys are kept verbatim when the file is rewritten.
KNOWN_SERVER_KEYS: Final = frozenset(
    {
        *_STDIO_KEYS,
        *_REMOTE_KEYS,
        *("type", "disabled", "protocol", "timeout", "origin", "trusted", "autoApproveReadOnly", "roots", "logLevel"),
        "disabledTools",
        *_SANDBOX_KEYS,
    }
)
TRUST_KEYS: Final = ("trusted", "autoApproveReadOnly", "origin", "roots")
"""Keys that grant a server rights: honoured only when the user set them in the app (the server editor, the
Tools list, an install's consent) or the organisation's policy did, so an import drops them. `origin` counts
because the policy's `registry` rules read it. `disabledTools` is not one: it only switches tools off, so an
import keeps it. A new key that grants anything belongs here."""
# The `oauth` object's keys (JSON spelling -> OAuthSettings field); unknown ones are refused, as typos.
OAUTH_KEYS: Final[Mapping[str, str]] = {
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "scopes": "scopes",
    "grant": "grant",
    "tokenEndpointAuthMethod": "token_endpoint_auth_method",
    "privateKey": "private_key",
    "signingAlgorithm": "signing_algorithm",
    "issuer": "issuer",
    "clientMetadataUrl": "client_metadata_url",
    "callbackPort": "callback_port",
}
OAUTH_ASSERTION_KEYS: Final[Mapping[str, str]] = {"assertionFile": "assertion_file", "assertionEnv": "assertion_env"}
"""Where a `jwt-bearer` entry reads its workload's JWT: a local credential MCP Desk sends to an authorization
server, so like `TRUST_KEYS` only the user (or the organisation) sets it. `OAUTH_KEYS`, the keys an import keeps,
leaves these out: an imported entry never gains an assertion source."""


def _str_list(value: object, path: KeyPath) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise schema_error(path, "must be a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise schema_error((*path, index), "must be a string")
    return tuple(value)


def _str_map(value: object, path: KeyPath) -> dict[str, str]:
    if not isinstance(value, dict):
        raise schema_error(path, "must be an object of string values")
    for key, item in value.items():
        if not isinstance(item, str):
            raise schema_error((*path, key), "must be a string")
    return dict(value)


def _roots(value: object, path: KeyPath) -> tuple[str, ...]:
    roots = _str_list(value, path)
    for index, entry in enumerate(roots):
        if (problem := root_problem(entry)) is not None:
            raise schema_error((*path, index), problem)
    return roots


def _tool_names(value: object, path: KeyPath) -> tuple[str, ...]:
    """`disabledTools`: tool names as the server lists them, each once, in the user's order."""
    names = _str_list(value, path)
    for index, name in enumerate(names):
        if not name.strip():
            raise schema_error((*path, index), "must be a tool's name")
    return tuple(dict.fromkeys(names))


def _nonempty_str(value: object, path: KeyPath) -> str:
    if not isinstance(value, str) or not value.strip():
        raise schema_error(path, "must be a non-empty string")
    return value


def _transport(data: Mapping[str, object], at: KeyPath) -> TransportKind:
    kind = data.get("type")
    if kind is not None:
        if not isinstance(kind, str) or kind not in _TYPE_ALIASES:
            raise schema_error((*at, "type"), 'must be "stdio", "http" or "sse"')
        return _TYPE_ALIASES[kind]
    if "command" in data and "url" in data:
        raise schema_error((*at, "url"), 'cannot be combined with "command"; pick stdio or HTTP')
    if "command" in data:
        return TransportKind.STDIO
    if "url" in data:
        return TransportKind.HTTP
    raise schema_error(at, 'needs either "command" (a local program) or "url" (a remote server)')


def server_from_dict(name: str, data: object, source: str, *, at: KeyPath | None = None) -> ServerConfig:
    """Build a `ServerConfig` from one entry of `mcpServers`; raises `ConfigError` naming the field.

    `at` is the entry's position in its document (default `mcpServers.<name>`), used for messages
    and to find the line; `source` names the file or "pasted text".
    """
    at = (SERVERS_KEY, name) if at is None else at
    try:
        return _server_from_dict(name, data, at)
    except ConfigError as exc:
        exc.file = exc.file or source
        raise


def _server_from_dict(name: str, data: object, at: KeyPath) -> ServerConfig:
    if not name.strip():
        raise schema_error(at, "needs a non-empty server name")
    if not isinstance(data, dict):
        raise schema_error(at, "must be an object")
    transport = _transport(data, at)
    # Keys of the other transport are a mistake unless empty: silently dropping them would lose data.
    foreign = _REMOTE_KEYS if transport is TransportKind.STDIO else _STDIO_KEYS
    for key in foreign:
        if data.get(key) not in (None, [], {}, ""):
            raise schema_error((*at, key), f"does not apply to a {transport.value} server")
    if transport is not TransportKind.STDIO and (data.get("sandboxEnabled") is True or data.get("sandbox")):
        key = "sandboxEnabled" if data.get("sandboxEnabled") is True else "sandbox"
        raise schema_error(
            (*at, key), f"does not apply to a {transport.value} server (only local servers are sandboxed)"
        )

    protocol = data.get("protocol", "auto")
    if protocol not in PROTOCOL_MODES:
        choices = ", ".join(f'"{mode}"' for mode in PROTOCOL_MODES)
        raise schema_error((*at, "protocol"), f"must be one of {choices}")
    timeout = data.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not math.isfinite(timeout) or timeout <= 0:
        raise schema_error((*at, "timeout"), "must be a number of seconds greater than 0")
    flags = {}
    for key in ("disabled", "trusted", "autoApproveReadOnly", "sandboxEnabled"):
        flags[key] = data.get(key, False)
        if not isinstance(flags[key], bool):
            raise schema_error((*at, key), "must be true or false")

    log_level = data.get("logLevel")
    if log_level is not None and log_level not in LOG_LEVELS:
        raise schema_error((*at, "logLevel"), f"must be one of {', '.join(LOG_LEVELS)}")

    common: dict[str, Any] = {
        "name": name,
        "transport": transport,
        "disabled": flags["disabled"],
        "protocol": protocol,
        "timeout": float(timeout),
        "origin": _str_map(data.get("origin", {}), (*at, "origin")),
        "trusted": flags["trusted"],
        "auto_approve_read_only": flags["autoApproveReadOnly"],
        "roots": _roots(data["roots"], (*at, "roots")) if "roots" in data else None,
        "log_level": log_level,
        "disabled_tools": _tool_names(data.get("disabledTools", []), (*at, "disabledTools")),
    }
    if transport is TransportKind.STDIO:
        cwd = data.get("cwd")
        sandbox = data.get("sandbox")
        return ServerConfig(
            command=_nonempty_str(data.get("command"), (*at, "command")),
            args=_str_list(data.get("args", []), (*at, "args")),
            env=_str_map(data.get("env", {}), (*at, "env")),
            cwd=None if cwd is None else _nonempty_str(cwd, (*at, "cwd")),
            sandbox_enabled=flags["sandboxEnabled"],
            sandbox=None if sandbox is None else sandbox_from_dict(sandbox, (*at, "sandbox")),
            **common,
        )
    oauth = data.get("oauth")
    return ServerConfig(
        url=_nonempty_str(data.get("url"), (*at, "url")),
        headers=_str_map(data.get("headers", {}), (*at, "headers")),
        oauth=None if oauth is None else _oauth(oauth, (*at, "oauth")),
        **common,
    )


def _choice(value: object, path: KeyPath, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise schema_error(path, "must be one of " + ", ".join(f'"{c}"' for c in choices))
    return value


def _url(value: object, path: KeyPath, *, https_path: bool = False) -> str:
    text = _nonempty_str(value, path)
    if https_path:
        if not re.fullmatch(r"https://[^/?#]+/[^?#]*[^/?#][^?#]*", text):
            raise schema_error(path, "must be an https:// URL with a path (where the document is served)")
    elif not re.match(r"https?://[^/?#]+", text) and "${" not in text:
        raise schema_error(path, "must be an http:// or https:// URL")
    return text


def _oauth(value: object, at: KeyPath) -> OAuthSettings:
    """The `oauth` entry: `false`, or an object of the known keys, checked together."""
    if value is False:
        return OAuthSettings(enabled=False)
    if not isinstance(value, dict):
        raise schema_error(at, "must be an object (or false to never sign in)")
    for key in value:
        if key not in OAUTH_KEYS and key not in OAUTH_ASSERTION_KEYS:
            known = ", ".join([*OAUTH_KEYS, *OAUTH_ASSERTION_KEYS])
            raise schema_error((*at, key), f"is not an oauth setting (known: {known})")
    fields: dict[str, Any] = {}
    for key in ("clientId", "clientSecret", "privateKey"):
        if key in value:
            fields[OAUTH_KEYS[key]] = _nonempty_str(value[key], (*at, key))
    if "assertionFile" in value:
        fields["assertion_file"] = _nonempty_str(value["assertionFile"], (*at, "assertionFile"))
    if "assertionEnv" in value:
        name = value["assertionEnv"]
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise schema_error((*at, "assertionEnv"), "must be the name of an environment variable")
        fields["assertion_env"] = name
    if "scopes" in value:
        scopes = _str_list(value["scopes"], (*at, "scopes"))
        for index, scope in enumerate(scopes):
            if not scope or any(ch.isspace() for ch in scope):
                raise schema_error((*at, "scopes", index), "must be one scope without spaces")
        fields["scopes"] = scopes
    if "grant" in value:
        fields["grant"] = _choice(value["grant"], (*at, "grant"), OAUTH_GRANTS)
    if "tokenEndpointAuthMethod" in value:
        method_path = (*at, "tokenEndpointAuthMethod")
        fields["token_endpoint_auth_method"] = _choice(
            value["tokenEndpointAuthMethod"], method_path, TOKEN_ENDPOINT_AUTH_METHODS
        )
    if "signingAlgorithm" in value:
        algorithm_path = (*at, "signingAlgorithm")
        fields["signing_algorithm"] = _choice(value["signingAlgorithm"], algorithm_path, JWT_SIGNING_ALGORITHMS)
    if "issuer" in value:
        fields["issuer"] = _url(value["issuer"], (*at, "issuer"))
    if "clientMetadataUrl" in value:
        fields["client_metadata_url"] = _url(value["clientMetadataUrl"], (*at, "clientMetadataUrl"), https_path=True)
    if "callbackPort" in value:
        port = value["callbackPort"]
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise schema_error((*at, "callbackPort"), "must be a port number from 1 to 65535")
        fields["callback_port"] = port
    settings = OAuthSettings(**fields)
    _check_oauth(settings, value, at)
    return settings


def _check_oauth(settings: OAuthSettings, value: Mapping[str, object], at: KeyPath) -> None:
    """The combinations that cannot work, named at the key that makes them so."""
    method = settings.token_endpoint_auth_method
    if settings.client_secret is not None and settings.client_id is None:
        raise schema_error((*at, "clientSecret"), 'needs "clientId" (the client this secret belongs to)')
    sources = [key for key in OAUTH_ASSERTION_KEYS if key in value]
    if settings.grant != JWT_BEARER_GRANT and sources:
        raise schema_error((*at, sources[0]), f'is only used with "grant": "{JWT_BEARER_GRANT}"')
    if settings.grant == JWT_BEARER_GRANT:
        # RFC 7523 §2.1: the workload's own JWT is the grant; the client may still authenticate (a secret).
        if len(sources) != 1:
            raise schema_error(
                (*at, sources[-1] if sources else "grant"),
                f'needs exactly one of "assertionFile" or "assertionEnv" with "{JWT_BEARER_GRANT}"',
            )
        if settings.private_key is not None or method == "private_key_jwt":
            key = "privateKey" if "privateKey" in value else "tokenEndpointAuthMethod"
            raise schema_error((*at, key), f'is not used with "{JWT_BEARER_GRANT}" (the assertion is the grant)')
    elif settings.machine_to_machine:
        if settings.client_id is None:
            raise schema_error((*at, "grant"), 'needs "clientId" with "client_credentials"')
        if settings.client_secret is None and settings.private_key is None:
            raise schema_error((*at, "grant"), 'needs "clientSecret" or "privateKey" with "client_credentials"')
        if method == "none":
            raise schema_error((*at, "tokenEndpointAuthMethod"), 'cannot be "none" with "client_credentials"')
    elif settings.grant == "enterprise":
        # The MCP authorization server takes the organisation's assertion from this client, with its secret.
        if settings.client_id is None or settings.client_secret is None:
            raise schema_error((*at, "grant"), 'needs "clientId" and "clientSecret" with "enterprise"')
        if method not in (None, "client_secret_basic", "client_secret_post"):
            raise schema_error(
                (*at, "tokenEndpointAuthMethod"),
                'must be "client_secret_basic" or "client_secret_post" with "enterprise"',
            )
    elif settings.private_key is not None and settings.client_secret is not None:
        # A browser sign-in authenticates with one of them (`core/auth/client_auth.py` picks the method).
        raise schema_error((*at, "privateKey"), 'is not used with "clientSecret": give one of them')
    if method == "private_key_jwt" and settings.private_key is None:
        raise schema_error((*at, "tokenEndpointAuthMethod"), 'needs "privateKey" with "private_key_jwt"')
    if method in ("client_secret_basic", "client_secret_post") and settings.client_secret is None:
        raise schema_error((*at, "tokenEndpointAuthMethod"), f'needs "clientSecret" with "{method}"')


def oauth_to_dict(settings: OAuthSettings) -> dict[str, Any] | bool:
    """The JSON spelling of an `oauth` entry, defaults left out."""
    if not settings.enabled:
        return False
    defaults = OAuthSettings()
    out: dict[str, Any] = {}
    for key, name in {**OAUTH_KEYS, **OAUTH_ASSERTION_KEYS}.items():
        item = getattr(settings, name)
        if item != getattr(defaults, name):
            out[key] = list(item) if isinstance(item, tuple) else item
    return out


def server_to_dict(cfg: ServerConfig) -> dict[str, Any]:
    """The Claude Desktop shape of one server, leaving out defaults so files stay short."""
    out: dict[str, Any] = {}
    if cfg.is_stdio:
        out["command"] = cfg.command
        if cfg.args:
            out["args"] = list(cfg.args)
        if cfg.env:
            out["env"] = dict(cfg.env)
        if cfg.cwd is not None:
            out["cwd"] = cfg.cwd
        if cfg.sandbox_enabled:
            out["sandboxEnabled"] = True
        if cfg.sandbox is not None:
            out["sandbox"] = sandbox_to_dict(cfg.sandbox)
    else:
        out["type"] = cfg.transport.value
        out["url"] = cfg.url
        if cfg.headers:
            out["headers"] = dict(cfg.headers)
        if cfg.oauth is not None:
            out["oauth"] = oauth_to_dict(cfg.oauth)
    if cfg.disabled:
        out["disabled"] = True
    if cfg.protocol != "auto":
        out["protocol"] = cfg.protocol
    if cfg.timeout != DEFAULT_TIMEOUT_S:
        out["timeout"] = int(cfg.timeout) if cfg.timeout.is_integer() else cfg.timeout
    if cfg.origin:
        out["origin"] = dict(cfg.origin)
    if cfg.trusted:
        out["trusted"] = True
    if cfg.auto_approve_read_only:
        out["autoApproveReadOnly"] = True
    if cfg.roots is not None:
        out["roots"] = list(cfg.roots)
    if cfg.log_level is not None:
        out["logLevel"] = cfg.log_level
    if cfg.disabled_tools:
        out["disabledTools"] = list(cfg.disabled_tools)
    return out

"""The user's `servers.json`, in Claude Desktop's `mcpServers` shape.

Users copy entries between clients and hand-edit this file, so errors must name the file, line
and field, and a file that does not parse is never overwritten (their edit would be lost).
"""

from __future__ import annotations

import bisect
import contextlib
import json
import math
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from desktop_app.core.root_paths import root_problem
from desktop_app.core.server_config import (
    DEFAULT_TIMEOUT_S,
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

KeyPath = tuple[str | int, ...]

# `type` spellings seen in the wild; several clients write streamable HTTP differently.
_TYPE_ALIASES: Final[Mapping[str, TransportKind]] = {
    "stdio": TransportKind.STDIO,
    "http": TransportKind.HTTP,
    "streamable-http": TransportKind.HTTP,
    "streamableHttp": TransportKind.HTTP,
    "sse": TransportKind.SSE,
}
_STDIO_KEYS: Final = ("command", "args", "env", "cwd")
_REMOTE_KEYS: Final = ("url", "headers", "oauth")
# Everything we read; other per-server keys are kept verbatim when the file is rewritten.
KNOWN_SERVER_KEYS: Final = frozenset(
    {
        *_STDIO_KEYS,
        *_REMOTE_KEYS,
        *("type", "disabled", "protocol", "timeout", "origin", "trusted", "autoApproveReadOnly", "roots", "logLevel"),
        "disabledTools",
    }
)
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


class ConfigError(Exception):
    """A configuration problem worth showing to the user as is: where it is and what is wrong."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        key_path: KeyPath = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        # Where in the JSON document the problem is; used to find `line` once the text is known.
        self.key_path = key_path

    def __str__(self) -> str:
        if self.file and self.line is not None:
            return f"{self.file}, line {self.line}: {self.message}"
        if self.file:
            return f"{self.file}: {self.message}"
        return self.message


@dataclass(frozen=True)
class ConfigLoad:
    """The outcome of reading `servers.json`: the app starts even when `error` is set."""

    servers: dict[str, ServerConfig]
    error: ConfigError | None
    path: Path
    # The parsed document, so a rewrite keeps keys this app does not know about.
    raw: dict[str, Any] | None = None


# --- parsing ---------------------------------------------------------------------------------


def field_name(path: KeyPath) -> str:
    """`("mcpServers", "github", "args", 2)` -> `mcpServers.github.args[2]`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _schema_error(path: KeyPath, problem: str) -> ConfigError:
    name = field_name(path)
    return ConfigError(f"{name or 'the document'} {problem}", field=name or None, key_path=path)


def _str_list(value: object, path: KeyPath) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _schema_error(path, "must be a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise _schema_error((*path, index), "must be a string")
    return tuple(value)


def _str_map(value: object, path: KeyPath) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _schema_error(path, "must be an object of string values")
    for key, item in value.items():
        if not isinstance(item, str):
            raise _schema_error((*path, key), "must be a string")
    return dict(value)


def _roots(value: object, path: KeyPath) -> tuple[str, ...]:
    roots = _str_list(value, path)
    for index, entry in enumerate(roots):
        if (problem := root_problem(entry)) is not None:
            raise _schema_error((*path, index), problem)
    return roots


def _tool_names(value: object, path: KeyPath) -> tuple[str, ...]:
    """`disabledTools`: tool names as the server lists them, each once, in the user's order."""
    names = _str_list(value, path)
    for index, name in enumerate(names):
        if not name.strip():
            raise _schema_error((*path, index), "must be a tool's name")
    return tuple(dict.fromkeys(names))


def _nonempty_str(value: object, path: KeyPath) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _schema_error(path, "must be a non-empty string")
    return value


def _transport(data: Mapping[str, object], at: KeyPath) -> TransportKind:
    kind = data.get("type")
    if kind is not None:
        if not isinstance(kind, str) or kind not in _TYPE_ALIASES:
            raise _schema_error((*at, "type"), 'must be "stdio", "http" or "sse"')
        return _TYPE_ALIASES[kind]
    if "command" in data and "url" in data:
        raise _schema_error((*at, "url"), 'cannot be combined with "command"; pick stdio or HTTP')
    if "command" in data:
        return TransportKind.STDIO
    if "url" in data:
        return TransportKind.HTTP
    raise _schema_error(at, 'needs either "command" (a local program) or "url" (a remote server)')


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
        raise _schema_error(at, "needs a non-empty server name")
    if not isinstance(data, dict):
        raise _schema_error(at, "must be an object")
    transport = _transport(data, at)
    # Keys of the other transport are a mistake unless empty: silently dropping them would lose data.
    foreign = _REMOTE_KEYS if transport is TransportKind.STDIO else _STDIO_KEYS
    for key in foreign:
        if data.get(key) not in (None, [], {}, ""):
            raise _schema_error((*at, key), f"does not apply to a {transport.value} server")

    protocol = data.get("protocol", "auto")
    if protocol not in PROTOCOL_MODES:
        choices = ", ".join(f'"{mode}"' for mode in PROTOCOL_MODES)
        raise _schema_error((*at, "protocol"), f"must be one of {choices}")
    timeout = data.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not math.isfinite(timeout) or timeout <= 0:
        raise _schema_error((*at, "timeout"), "must be a number of seconds greater than 0")
    flags = {}
    for key in ("disabled", "trusted", "autoApproveReadOnly"):
        flags[key] = data.get(key, False)
        if not isinstance(flags[key], bool):
            raise _schema_error((*at, key), "must be true or false")

    log_level = data.get("logLevel")
    if log_level is not None and log_level not in LOG_LEVELS:
        raise _schema_error((*at, "logLevel"), f"must be one of {', '.join(LOG_LEVELS)}")

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
        return ServerConfig(
            command=_nonempty_str(data.get("command"), (*at, "command")),
            args=_str_list(data.get("args", []), (*at, "args")),
            env=_str_map(data.get("env", {}), (*at, "env")),
            cwd=None if cwd is None else _nonempty_str(cwd, (*at, "cwd")),
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
        raise _schema_error(path, "must be one of " + ", ".join(f'"{c}"' for c in choices))
    return value


def _url(value: object, path: KeyPath, *, https_path: bool = False) -> str:
    text = _nonempty_str(value, path)
    if https_path:
        if not re.fullmatch(r"https://[^/?#]+/[^?#]*[^/?#][^?#]*", text):
            raise _schema_error(path, "must be an https:// URL with a path (where the document is served)")
    elif not re.match(r"https?://[^/?#]+", text) and "${" not in text:
        raise _schema_error(path, "must be an http:// or https:// URL")
    return text


def _oauth(value: object, at: KeyPath) -> OAuthSettings:
    """The `oauth` entry: `false`, or an object of the known keys, checked together."""
    if value is False:
        return OAuthSettings(enabled=False)
    if not isinstance(value, dict):
        raise _schema_error(at, "must be an object (or false to never sign in)")
    for key in value:
        if key not in OAUTH_KEYS:
            known = ", ".join(OAUTH_KEYS)
            raise _schema_error((*at, key), f"is not an oauth setting (known: {known})")
    fields: dict[str, Any] = {}
    for key in ("clientId", "clientSecret", "privateKey"):
        if key in value:
            fields[OAUTH_KEYS[key]] = _nonempty_str(value[key], (*at, key))
    if "scopes" in value:
        scopes = _str_list(value["scopes"], (*at, "scopes"))
        for index, scope in enumerate(scopes):
            if not scope or any(ch.isspace() for ch in scope):
                raise _schema_error((*at, "scopes", index), "must be one scope without spaces")
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
            raise _schema_error((*at, "callbackPort"), "must be a port number from 1 to 65535")
        fields["callback_port"] = port
    settings = OAuthSettings(**fields)
    _check_oauth(settings, value, at)
    return settings


def _check_oauth(settings: OAuthSettings, value: Mapping[str, object], at: KeyPath) -> None:
    """The combinations that cannot work, named at the key that makes them so."""
    method = settings.token_endpoint_auth_method
    if settings.client_secret is not None and settings.client_id is None:
        raise _schema_error((*at, "clientSecret"), 'needs "clientId" (the client this secret belongs to)')
    if settings.machine_to_machine:
        if settings.client_id is None:
            raise _schema_error((*at, "grant"), 'needs "clientId" with "client_credentials"')
        if settings.client_secret is None and settings.private_key is None:
            raise _schema_error((*at, "grant"), 'needs "clientSecret" or "privateKey" with "client_credentials"')
        if method == "none":
            raise _schema_error((*at, "tokenEndpointAuthMethod"), 'cannot be "none" with "client_credentials"')
    elif settings.private_key is not None or method == "private_key_jwt":
        key = "privateKey" if "privateKey" in value else "tokenEndpointAuthMethod"
        raise _schema_error((*at, key), 'is only used with "grant": "client_credentials"')
    if method == "private_key_jwt" and settings.private_key is None:
        raise _schema_error((*at, "tokenEndpointAuthMethod"), 'needs "privateKey" with "private_key_jwt"')
    if method in ("client_secret_basic", "client_secret_post") and settings.client_secret is None:
        raise _schema_error((*at, "tokenEndpointAuthMethod"), f'needs "clientSecret" with "{method}"')


def oauth_to_dict(settings: OAuthSettings) -> dict[str, Any] | bool:
    """The JSON spelling of an `oauth` entry, defaults left out."""
    if not settings.enabled:
        return False
    defaults = OAuthSettings()
    out: dict[str, Any] = {}
    for key, name in OAUTH_KEYS.items():
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


def load_json(text: str, source: str) -> object:
    """`json.loads` whose errors say file and line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=source, line=exc.lineno) from None


def servers_from_mapping(
    mapping: object, *, text: str, source: str, at: KeyPath = (SERVERS_KEY,)
) -> dict[str, ServerConfig]:
    """Parse an object of `name -> server`; schema errors get the line of the offending key in `text`."""
    try:
        if not isinstance(mapping, dict):
            raise _schema_error(at, "must be an object mapping server names to settings")
        return {name: server_from_dict(name, data, source, at=(*at, name)) for name, data in mapping.items()}
    except ConfigError as exc:
        raise ConfigError(
            exc.message,
            file=source,
            line=line_of(text, exc.key_path),
            field=exc.field,
            key_path=exc.key_path,
        ) from None


def parse_config(text: str, source: str) -> dict[str, ServerConfig]:
    """Parse the text of a `servers.json`; raises `ConfigError` with file, line and field."""
    _, servers = _parse_document(text, source)
    return servers


def _parse_document(text: str, source: str) -> tuple[dict[str, Any], dict[str, ServerConfig]]:
    if not text.strip():
        return {}, {}  # A freshly touched file is an empty configuration, not an error.
    doc = load_json(text, source)
    if not isinstance(doc, dict):
        raise ConfigError(f'the file must hold a JSON object with "{SERVERS_KEY}"', file=source, line=1)
    if SERVERS_KEY not in doc:
        return doc, {}
    return doc, servers_from_mapping(doc[SERVERS_KEY], text=text, source=source)


def parse_pasted(text: str) -> dict[str, ServerConfig]:
    """Servers from pasted JSON: a whole `{"mcpServers": {...}}` document or a bare `{"name": {...}}`."""
    source = "pasted text"
    doc = load_json(text, source)
    if isinstance(doc, dict) and SERVERS_KEY in doc:
        return servers_from_mapping(doc[SERVERS_KEY], text=text, source=source)
    if isinstance(doc, dict) and ("command" in doc or "url" in doc):
        raise ConfigError(
            'this is a single server without a name; paste it as {"my-server": {...}}', file=source, line=1
        )
    return servers_from_mapping(doc, text=text, source=source, at=())


def load_config(path: Path) -> ConfigLoad:
    """Read `servers.json` without ever raising for its content, so the app can start and show the error."""
    source = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ConfigLoad(servers={}, error=None, path=path, raw=None)
    except (OSError, UnicodeDecodeError) as exc:
        return ConfigLoad(servers={}, error=ConfigError(f"cannot read: {exc}", file=source), path=path)
    try:
        raw, servers = _parse_document(text, source)
    except ConfigError as exc:
        return ConfigLoad(servers={}, error=exc, path=path)
    return ConfigLoad(servers=servers, error=None, path=path, raw=raw)


# --- line numbers ----------------------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")


def key_lines(text: str) -> dict[KeyPath, int]:
    """Map every key path of valid JSON `text` to the 1-based line where its key (or value) starts.

    A tiny walker over the already-validated text: json has no positions, and error messages are
    only useful if they point at the line the user has to fix.
    """
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    decoder = json.JSONDecoder()
    found: dict[KeyPath, int] = {}

    def line(pos: int) -> int:
        return bisect.bisect_left(newlines, pos) + 1

    def skip(pos: int) -> int:
        match = _WS.match(text, pos)
        assert match is not None  # `*` always matches
        return match.end()

    def value(pos: int, path: KeyPath) -> int:
        pos = skip(pos)
        found.setdefault(path, line(pos))
        opener = text[pos]
        if opener not in "{[":
            return decoder.raw_decode(text, pos)[1]
        closer, pos, index = ("}" if opener == "{" else "]"), skip(pos + 1), 0
        while text[pos] != closer:
            if opener == "{":
                key, after = decoder.raw_decode(text, pos)
                child: KeyPath = (*path, key)
                found[child] = line(pos)
                pos = value(skip(after) + 1, child)  # skip the ':'
            else:
                pos = value(pos, (*path, index))
                index += 1
            pos = skip(pos)
            if text[pos] == ",":
                pos = skip(pos + 1)
        return pos + 1

    value(0, ())
    return found


def line_of(text: str, path: KeyPath) -> int | None:
    """The line of the deepest existing prefix of `path` (a missing key points at its parent)."""
    try:
        lines = key_lines(text)
    except (ValueError, IndexError):
        return None
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


# --- saving ----------------------------------------------------------------------------------


def build_document(servers: Mapping[str, ServerConfig], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The document to write: `raw`'s other top-level and per-server keys kept, servers replaced."""
    raw = raw or {}
    old_servers = raw.get(SERVERS_KEY)
    old_servers = old_servers if isinstance(old_servers, dict) else {}
    entries: dict[str, Any] = {}
    for name, cfg in servers.items():
        entry = server_to_dict(cfg)
        old = old_servers.get(name)
        if isinstance(old, dict):
            entry.update({k: v for k, v in old.items() if k not in KNOWN_SERVER_KEYS})
        entries[name] = entry
    doc = {key: (entries if key == SERVERS_KEY else value) for key, value in raw.items()}
    doc[SERVERS_KEY] = entries
    return doc


def save_config(path: Path, servers: Mapping[str, ServerConfig], *, raw: Mapping[str, Any] | None = None) -> None:
    """Write `servers` atomically (mode 0600), keeping the previous file as `<name>.bak`.

    Refuses with `ConfigError` when the current file does not parse: it is a hand edit in progress.
    Without `raw`, unknown keys are taken from the current file.
    """
    previous: str | None = None
    with contextlib.suppress(FileNotFoundError):
        previous = path.read_text(encoding="utf-8")
    if previous is not None:
        try:
            current_raw, _ = _parse_document(previous, path.name)
        except ConfigError as exc:
            raise ConfigError(
                f"not saving: the file has an error to fix first ({exc.message})",
                file=path.name,
                line=exc.line,
                field=exc.field,
            ) from exc
        raw = current_raw if raw is None else raw
    text = json.dumps(build_document(servers, raw), indent=2, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if previous is not None and previous.strip():
        atomic_write(path.with_name(path.name + ".bak"), previous)
    atomic_write(path, text)


def atomic_write(path: Path, text: str) -> None:
    """Replace `path` with `text` so a crash leaves either the old or the new file, never half of one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # created 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable (POSIX only; Windows cannot open directories)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

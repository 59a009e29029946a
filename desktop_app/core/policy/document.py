"""The policy file's shape, read strictly: every key known, every value of its type, each error with
its file, line and field.

```json
{"servers": {"allow": [{"registry": "io.github.acme/*"}, {"url": "https://mcp.acme.example"},
                       {"command": "npx", "args": ["-y", "@acme/*"]}]},
 "registry": "https://registry.acme.example",
 "features": {"bundles": false, "apps": false, "sampling": false, "alwaysAllow": false},
 "approvals": {"everyCall": true},
 "identityProvider": {"issuer": "https://login.acme.example", "clientId": "mcp-desk"},
 "sandbox": {"required": true}}
```

`sandbox.required`: every local (stdio) server runs sandboxed whatever its entry says, and the user is never
offered to run one without the sandbox.

A key the reader does not know is an error, not something to skip: a misspelt `"aloow"` would
otherwise allow everything while the administrator believes it allows a list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from desktop_app.core.config_error import ConfigError, field_name
from desktop_app.core.config_error import KeyPath as JsonPath
from desktop_app.core.json_positions import key_lines

MAX_POLICY_BYTES: Final = 1024 * 1024
ANY_MORE_ARGS: Final = "**"
"""As the last of a command entry's `args`: any further arguments (or none)."""
_LOOPBACK: Final = ("localhost", "127.0.0.1", "::1")
DEFAULT_PORTS: Final = {"https": 443, "http": 80}

RuleKind = Literal["registry", "url", "command"]


class PolicyError(ConfigError):
    """The file is not a policy MCP Desk can follow: where, which field, what is wrong."""

    def __init__(self, source: Path, line: int | None, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message, file=str(source), line=line, field=field)
        self.source = source
        self.problem = message


@dataclass(frozen=True)
class ServerRule:
    """One entry of `servers.allow`: a registry name glob, a URL origin, or a command with its arguments."""

    kind: RuleKind
    pattern: str
    args: tuple[str, ...] | None = None
    """Glob patterns for the arguments, in order (None: any arguments)."""
    field: str = ""
    """Where it is written, e.g. `servers.allow[2]`."""
    line: int = 0


@dataclass(frozen=True)
class Features:
    """What the organisation switched off (`false`) in `features`; each is on unless it says otherwise."""

    bundles: bool = True
    apps: bool = True
    sampling: bool = True
    always_allow: bool = True


@dataclass(frozen=True)
class ManagedPolicy:
    """Everything a policy file says; the empty policy allows everything and fixes nothing."""

    allow: tuple[ServerRule, ...] | None = None
    """None: every server may run; a tuple (even empty): only servers an entry matches."""
    registry: str | None = None
    """The only registry servers may be found and installed from (normalised: no trailing `/`)."""
    features: Features = field(default_factory=Features)
    every_call: bool = False
    identity_provider: Mapping[str, Any] | None = None
    """The organisation's IdP in its JSON spelling (`issuer`, `clientId`, `clientSecret`, `scopes`)."""
    sandbox_required: bool = False
    """Every local server runs sandboxed (`sandbox.required`), whatever its entry says."""
    lines: Mapping[str, int] = field(default_factory=dict)
    """The line of each field the file sets (`features.bundles` -> 5)."""

    def line(self, name: str) -> int | None:
        return self.lines.get(name)


def read_policy(source: Path) -> ManagedPolicy:
    """Read and check the policy at `source`; raises `OSError` when it cannot be read, `PolicyError` when
    it is not a policy."""
    return parse_policy(read_text(source), source)


def read_text(source: Path) -> str:
    """The text of a policy file, refused when larger than `MAX_POLICY_BYTES` or not UTF-8 (`OSError`
    when it cannot be read)."""
    with source.open("rb") as file:
        data = file.read(MAX_POLICY_BYTES + 1)
    if len(data) > MAX_POLICY_BYTES:
        raise PolicyError(source, None, "", f"the file is larger than {MAX_POLICY_BYTES // 1024} KiB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PolicyError(source, data.count(b"\n", 0, exc.start) + 1, "", "the file is not UTF-8 text") from None


def parse_policy(text: str, source: Path) -> ManagedPolicy:
    """The policy `text` says (read from `source`, which errors name)."""
    return PolicyReader(text, source).policy()


class _Object(dict[str, Any]):
    """A JSON object that remembers a key given twice (json would silently keep the second)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.twice: str | None = None
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen and self.twice is None:
                self.twice = key
            seen.add(key)


class PolicyReader:
    """Reads a policy document value by value, remembering each field's line; each mistake is a
    `PolicyError` naming file, line and field."""

    def __init__(self, text: str, source: Path) -> None:
        try:
            self.document = json.loads(text, object_pairs_hook=_Object)
            self.key_lines = key_lines(text)
        except json.JSONDecodeError as exc:
            raise PolicyError(source, exc.lineno, "", f"not valid JSON: {exc.msg}") from None
        except RecursionError:
            raise PolicyError(source, None, "", "not valid JSON: nested too deeply") from None
        self.source = source
        self.lines: dict[str, int] = {}

    def line(self, path: JsonPath) -> int:
        """The line of `path`, else of the nearest enclosing value."""
        while path and path not in self.key_lines:
            path = path[:-1]
        return self.key_lines.get(path, 1)

    def fail(self, path: JsonPath, message: str) -> PolicyError:
        return PolicyError(self.source, self.line(path), field_name(path) or "the document", message)

    def at(self, path: JsonPath) -> Any:
        value = self.document
        for part in path:
            value = value[part]
        self.lines[field_name(path)] = self.line(path)
        return value

    def object(self, path: JsonPath, known: tuple[str, ...]) -> dict[str, Any]:
        value = self.at(path)
        if not isinstance(value, dict):
            raise self.fail(path, "must be an object ({…})")
        if isinstance(value, _Object) and value.twice is not None:
            raise self.fail((*path, value.twice), "is given twice")
        for key in value:
            if key not in known:
                raise self.fail((*path, key), f"is not a policy setting (known here: {', '.join(known)})")
        return value

    def boolean(self, path: JsonPath) -> bool:
        value = self.at(path)
        if not isinstance(value, bool):
            raise self.fail(path, "must be true or false")
        return value

    def text(self, path: JsonPath) -> str:
        value = self.at(path)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(path, "must be text that is not empty")
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
            raise self.fail(path, "must not hold control characters")
        return value.strip()

    def policy(self) -> ManagedPolicy:
        top = self.object(
            (), ("$schema", "servers", "registry", "features", "approvals", "identityProvider", "sandbox")
        )
        allow: tuple[ServerRule, ...] | None = None
        if "servers" in top:
            servers = self.object(("servers",), ("allow",))
            if "allow" in servers:
                allow = self.allow_list(("servers", "allow"))
        registry = self.registry(("registry",)) if "registry" in top else None
        features = Features()
        if "features" in top:
            switches = self.object(("features",), ("bundles", "apps", "sampling", "alwaysAllow"))
            features = Features(
                *(
                    self.boolean(("features", key)) if key in switches else True
                    for key in ("bundles", "apps", "sampling", "alwaysAllow")
                )
            )
        every_call = False
        if "approvals" in top:
            approvals = self.object(("approvals",), ("everyCall",))
            every_call = self.boolean(("approvals", "everyCall")) if "everyCall" in approvals else False
        idp = self.identity_provider(("identityProvider",)) if "identityProvider" in top else None
        sandbox_required = False
        if "sandbox" in top:
            sandbox = self.object(("sandbox",), ("required",))
            sandbox_required = self.boolean(("sandbox", "required")) if "required" in sandbox else False
        return ManagedPolicy(allow, registry, features, every_call, idp, sandbox_required, dict(self.lines))

    def allow_list(self, path: JsonPath) -> tuple[ServerRule, ...]:
        entries = self.at(path)
        if not isinstance(entries, list):
            raise self.fail(path, "must be a list of entries")
        return tuple(self.rule((*path, index)) for index in range(len(entries)))

    def rule(self, path: JsonPath) -> ServerRule:
        entry = self.object(path, ("registry", "url", "command", "args"))
        kinds: list[RuleKind] = [kind for kind in ("registry", "url", "command") if kind in entry]
        if len(kinds) != 1:
            raise self.fail(path, 'needs exactly one of "registry", "url" or "command"')
        kind = kinds[0]
        pattern = self.text((*path, kind))
        where = (field_name(path), self.line(path))
        if "args" in entry and kind != "command":
            raise self.fail((*path, "args"), 'goes only with "command"')
        if kind == "url":
            return ServerRule(kind, self.origin((*path, kind), pattern), None, *where)
        if kind == "registry":
            if any(c.isspace() for c in pattern):
                raise self.fail((*path, kind), "a registry name has no spaces")
            return ServerRule(kind, pattern, None, *where)
        args = self.patterns((*path, "args")) if "args" in entry else None
        return ServerRule(kind, pattern, args, *where)

    def patterns(self, path: JsonPath) -> tuple[str, ...]:
        value = self.at(path)
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.fail(path, "must be a list of glob patterns, one per argument")
        if ANY_MORE_ARGS in value[:-1]:
            raise self.fail(path, f'"{ANY_MORE_ARGS}" (any further arguments) may only come last')
        return tuple(value)

    def origin(self, path: JsonPath, url: str) -> str:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if url_origin(url) is None and host:
            raise self.fail(path, "has a port that is not a number")
        if parts.scheme not in ("https", "http") or not host or parts.username or parts.password:
            raise self.fail(path, "must be an origin: https://host or https://host:port")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise self.fail(path, "must be an origin without a path (https://host, not https://host/mcp)")
        if "*" in host and not (host.startswith("*.") and "*" not in host[2:]):
            raise self.fail(path, 'may use "*" only as a whole first label (https://*.acme.example)')
        return url_origin(url) or url

    def registry(self, path: JsonPath) -> str:
        url = self.text(path).rstrip("/")
        url = url.removesuffix("/v0.1")
        parts = urlsplit(url)
        if not _secure(url) or not parts.hostname:
            raise self.fail(path, "must be the registry's https:// URL")
        return url

    def identity_provider(self, path: JsonPath) -> dict[str, Any]:
        idp = self.object(path, ("issuer", "clientId", "clientSecret", "scopes"))
        for key in ("issuer", "clientId"):
            if key not in idp:
                raise self.fail(path, f'needs "{key}"')
        result: dict[str, Any] = {"issuer": self.text((*path, "issuer")), "clientId": self.text((*path, "clientId"))}
        if not _secure(result["issuer"]):
            raise self.fail((*path, "issuer"), "must be the identity provider's https:// URL")
        if "clientSecret" in idp:
            result["clientSecret"] = self.text((*path, "clientSecret"))
        if "scopes" in idp:
            scopes = self.at((*path, "scopes"))
            if not isinstance(scopes, list) or not all(isinstance(s, str) and s and " " not in s for s in scopes):
                raise self.fail((*path, "scopes"), "must be a list of scope names")
            result["scopes"] = list(scopes)
        return result


def url_origin(url: str) -> str | None:
    """`https://Host:443/path` -> `https://host`: scheme, host and a port other than the scheme's own."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not scheme or not parts.hostname:
        return None
    if port == DEFAULT_PORTS.get(scheme):
        port = None
    return f"{scheme}://{parts.hostname}" + (f":{port}" if port is not None else "")


def _secure(url: str) -> bool:
    """HTTPS, or plain HTTP to this computer (a test or a local mirror)."""
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK)

"""The user's servers in the shapes other clients read: VS Code's `{"inputs", "servers"}` or the
`mcpServers` shape of Claude Code, Claude Desktop, Cursor and GitHub Copilot.

The config file holds placeholders, never secret values (those live in the secret store), and an
export is written from the config file alone, so no value can reach it. `${secret:NAME}` becomes
VS Code's `${input:NAME}` with a password input, which VS Code asks for and keeps in its own store;
in the `mcpServers` shape it stays `${secret:NAME}`, which `mcp-desk import` reads back. The keys that
grant rights here (`TRUST_KEYS`) are not exported: they are this app's decisions, and another client
would not honour them. `disabledTools` and the sandbox keys are: they only narrow what a server may
do, VS Code reads the sandbox keys, and an import back keeps all three.

A credential typed into servers.json itself (an environment variable or header named like one, or a
value shaped like one, with no placeholder) is not copied either: the export writes a placeholder in
its place and says so, since a project's `.mcp.json` is usually shared.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from desktop_app.core.expansion import SECRET_PREFIX, placeholders, secret_placeholder
from desktop_app.core.log_redaction import is_credential_name, looks_like_credential
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_entry import SERVERS_KEY, TRUST_KEYS, server_to_dict

ExportFormat = Literal["vscode", "claude"]
EXPORT_FORMATS: Final[Mapping[ExportFormat, str]] = {
    "vscode": 'VS Code (.vscode/mcp.json: "servers" and "inputs")',
    "claude": 'Claude Code, Claude Desktop, Cursor, GitHub Copilot ("mcpServers")',
}
_TOKEN_RE: Final = re.compile(r"\$\$\{|\$\{([^}]*)\}")
_VAR_NAME_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NOT_SECRET_CHAR_RE: Final = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class Export:
    """An export's file text and what the user should hear about it."""

    text: str
    secrets: list[str]
    """The secrets the file refers to by placeholder, to set in the other client."""
    withheld: list[str]
    """Credentials typed into servers.json, written as placeholders instead: `notes: env.API_KEY`."""
    left_out: list[str]
    """The trust keys some server sets here, which are not exported."""


def export_servers(servers: Mapping[str, ServerConfig], export_format: ExportFormat) -> Export:
    """`servers` as a file of `export_format`: placeholders kept, typed-in credentials withheld, trust keys
    left out."""
    withheld: list[str] = []
    safe = {name: _withheld(config, withheld) for name, config in servers.items()}
    entries = {name: _entry(config) for name, config in safe.items()}
    secrets = sorted({secret for config in safe.values() for secret in placeholders(config)})
    document: dict[str, Any]
    if export_format == "claude":
        document = {SERVERS_KEY: entries}
    else:
        inputs = [
            {"type": "promptString", "id": name, "description": f"{name} (a secret)", "password": True}
            for name in secrets
        ]
        document = {"inputs": inputs, "servers": _for_vscode(entries)}
    left_out = [key for key in TRUST_KEYS if any(key in server_to_dict(config) for config in servers.values())]
    return Export(json.dumps(document, indent=2, ensure_ascii=False) + "\n", secrets, withheld, left_out)


def _withheld(config: ServerConfig, withheld: list[str]) -> ServerConfig:
    """`config` with each credential typed into it as a `${secret:…}` placeholder, named in `withheld`."""

    def hide(field: str, key: str, value: str, *, by_name: bool = True) -> str:
        if "${" in value or not ((by_name and is_credential_name(key)) or looks_like_credential(value)):
            return value
        withheld.append(f"{config.name}: {field}")
        return secret_placeholder(_NOT_SECRET_CHAR_RE.sub("_", f"{config.name}_{key}"))

    env = {key: hide(f"env.{key}", key, value) for key, value in config.env.items()}
    headers = {key: hide(f"headers.{key}", key, value) for key, value in config.headers.items()}
    args = tuple(hide(f"args[{index}]", f"arg{index}", arg, by_name=False) for index, arg in enumerate(config.args))
    oauth = config.oauth
    if oauth is not None and oauth.client_secret is not None:
        oauth = replace(oauth, client_secret=hide("oauth.clientSecret", "clientSecret", oauth.client_secret))
    return replace(config, env=env, headers=headers, args=args, oauth=oauth)


def _entry(config: ServerConfig) -> dict[str, Any]:
    entry = {key: value for key, value in server_to_dict(config).items() if key not in TRUST_KEYS}
    if config.is_stdio:
        entry = {"type": "stdio", **entry}  # Claude Code and VS Code write it; every reader accepts it
    return entry


def _for_vscode(value: Any) -> Any:
    """`${secret:NAME}` -> `${input:NAME}`, `${VAR}` -> `${env:VAR}`; `$${` (a literal) as it is."""

    def rewrite(match: re.Match[str]) -> str:
        inner = match.group(1)
        if inner is None:
            return match.group(0)
        if inner.startswith(SECRET_PREFIX):
            return "${input:" + inner[len(SECRET_PREFIX) :] + "}"
        if _VAR_NAME_RE.fullmatch(inner):
            return "${env:" + inner + "}"
        return match.group(0)

    if isinstance(value, str):
        return _TOKEN_RE.sub(rewrite, value)
    if isinstance(value, list):
        return [_for_vscode(item) for item in value]
    if isinstance(value, dict):
        return {key: _for_vscode(item) for key, item in value.items()}
    return value

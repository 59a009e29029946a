"""Import servers from Claude Desktop, Cursor and VS Code, never overwriting the user's own entries.

Claude Desktop and Cursor use the same `mcpServers` shape as `servers.json`; VS Code uses
`servers` plus `inputs` that prompt for values, which become `${secret:ID}` placeholders here so
the values go to the secret store instead of the config file.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Literal

from desktop_app.core.config_error import ConfigError, KeyPath
from desktop_app.core.config_file import load_json, servers_from_mapping
from desktop_app.core.expansion import SECRET_PREFIX, placeholders
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_entry import OAUTH_KEYS, SERVERS_KEY

ClientKind = Literal["claude", "cursor", "vscode"]
CLIENT_NAMES: Final[Mapping[ClientKind, str]] = {
    "claude": "Claude Desktop",
    "cursor": "Cursor",
    "vscode": "VS Code",
}
_VARIABLE_RE: Final = re.compile(r"\$\{([^}]*)\}")
_NOT_SECRET_CHAR_RE: Final = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class ImportSource:
    """A place where another client keeps its MCP servers."""

    client: str
    kind: ClientKind
    path: Path
    exists: bool


@dataclass(frozen=True)
class SecretNeeded:
    """A secret an imported server refers to; the user must store it before connecting."""

    name: str
    description: str = ""


@dataclass(frozen=True)
class ImportReport:
    """What an import did; `servers` is the merged result to save."""

    source: Path
    kind: ClientKind
    servers: dict[str, ServerConfig]
    added: list[str]
    skipped: list[str]
    unchanged: list[str]
    secrets_needed: list[SecretNeeded]
    warnings: list[str]

    @property
    def summary(self) -> str:
        """One paragraph for the user."""
        client = CLIENT_NAMES[self.kind]
        if not (self.added or self.skipped or self.unchanged):
            return f"No servers found in {client}'s {self.source}."
        parts = [f"From {client}: added {len(self.added)}" + _names(self.added)]
        if self.skipped:
            parts.append(f"skipped {len(self.skipped)} whose name is already used" + _names(self.skipped))
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} already present" + _names(self.unchanged))
        text = "; ".join(parts) + "."
        if self.secrets_needed:
            needed = ", ".join(f"{s.name} ({s.description})" if s.description else s.name for s in self.secrets_needed)
            text += f" Set these secrets before connecting: {needed}."
        return " ".join([text, *self.warnings])


def _names(names: list[str]) -> str:
    return f" ({', '.join(names)})" if names else ""


def known_sources(*, workspace: Path | None = None, platform: str | None = None) -> list[ImportSource]:
    """The config files of other clients for this user and OS (`platform` defaults to `sys.platform`)."""
    platform = sys.platform if platform is None else platform
    home = Path.home()
    if platform == "darwin":
        app_data = home / "Library" / "Application Support"
    elif platform == "win32":
        app_data = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        app_data = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    found: list[tuple[ClientKind, Path]] = [
        ("claude", app_data / "Claude" / "claude_desktop_config.json"),
        ("cursor", home / ".cursor" / "mcp.json"),
        ("vscode", app_data / "Code" / "User" / "mcp.json"),
    ]
    if workspace is not None:
        found += [
            ("cursor", workspace / ".cursor" / "mcp.json"),
            ("vscode", workspace / ".vscode" / "mcp.json"),
        ]
    return [ImportSource(CLIENT_NAMES[kind], kind, path, path.is_file()) for kind, path in found]


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (VS Code's JSONC) -> JSON, keeping every line number.

    Comments become spaces (their newlines stay) and a trailing comma becomes a space, so error
    lines still match the user's file. Text inside strings is never touched.
    """
    out = list(text)
    i, n = 0, len(text)
    in_string = False
    last_comma: int | None = None  # a comma outside strings not yet followed by a value
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string, last_comma = True, None
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            out[i:end] = " " * (end - i)
            i = end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
            out[i:end] = [c if c == "\n" else " " for c in text[i:end]]
            i = end
            continue
        elif ch == ",":
            last_comma = i
        elif ch in "}]":
            if last_comma is not None:
                out[last_comma] = " "
            last_comma = None
        elif not ch.isspace():
            last_comma = None
        i += 1
    return "".join(out)


def import_servers(
    existing: Mapping[str, ServerConfig], source_path: Path, kind: ClientKind | None = None
) -> ImportReport:
    """Merge the servers of another client's file into `existing`; an existing name is never replaced.

    `kind` is detected from the file's shape when None. Raises `ConfigError` naming file and line.
    """
    source = str(source_path)
    try:
        text = strip_jsonc(source_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", file=source) from exc
    doc = load_json(text, source)
    if not isinstance(doc, dict):
        raise ConfigError("the file must hold a JSON object", file=source, line=1)
    kind, at = _locate_servers(doc, source_path, kind)
    mapping: Any = doc
    for key in at:
        mapping = mapping[key]

    workspace = source_path.parent.parent if source_path.parent.name == ".vscode" else None
    warnings: list[str] = []
    converted = _convert(mapping, workspace, warnings)
    if isinstance(converted, dict):
        converted = {name: _adapt_sign_in(name, entry, warnings) for name, entry in converted.items()}
    imported = servers_from_mapping(converted, text=text, source=source, at=at)
    if isinstance(mapping, dict):
        warnings += [
            f"{name}: envFile is not supported; copy its variables into env."
            for name, entry in mapping.items()
            if isinstance(entry, dict) and "envFile" in entry
        ]

    merged = dict(existing)
    added, skipped, unchanged = [], [], []
    for name, cfg in imported.items():
        if name not in existing:
            merged[name] = cfg
            added.append(name)
        elif _same_server(existing[name], cfg):
            unchanged.append(name)
        else:
            skipped.append(name)

    descriptions = _input_descriptions(doc.get("inputs")) if kind == "vscode" else {}
    needed = sorted({secret for name in added for secret in placeholders(merged[name])})
    return ImportReport(
        source=source_path,
        kind=kind,
        servers=merged,
        added=added,
        skipped=skipped,
        unchanged=unchanged,
        secrets_needed=[SecretNeeded(name, descriptions.get(name, "")) for name in needed],
        warnings=list(dict.fromkeys(warnings)),
    )


def _same_server(ours: ServerConfig, theirs: ServerConfig) -> bool:
    """The same server, whichever of its tools the user switched off here (the other client cannot know)."""
    return replace(ours, disabled_tools=()) == replace(theirs, disabled_tools=())


def _locate_servers(doc: Mapping[str, Any], path: Path, kind: ClientKind | None) -> tuple[ClientKind, KeyPath]:
    """Which client wrote `doc` and where its servers object is."""
    vscode_at: KeyPath | None = None
    if "servers" in doc:
        vscode_at = ("servers",)
    elif isinstance(doc.get("mcp"), dict) and "servers" in doc["mcp"]:
        vscode_at = ("mcp", "servers")  # VS Code's older place, inside settings.json
    if kind is None:
        if SERVERS_KEY in doc:
            kind = "cursor" if ".cursor" in path.parts else "claude"
        elif vscode_at is not None:
            kind = "vscode"
        else:
            raise ConfigError(
                f'no "{SERVERS_KEY}" (Claude Desktop, Cursor) or "servers" (VS Code) found', file=str(path)
            )
    at = vscode_at if kind == "vscode" else ((SERVERS_KEY,) if SERVERS_KEY in doc else None)
    if at is None:
        key = "servers" if kind == "vscode" else SERVERS_KEY
        raise ConfigError(f'no "{key}" found; is this a {CLIENT_NAMES[kind]} file?', file=str(path))
    return kind, at


def secret_name_for_input(input_id: str) -> str:
    """A VS Code input id as a secret name (`${input:api key}` -> `api_key`)."""
    return _NOT_SECRET_CHAR_RE.sub("_", input_id) or "_"


def _convert(value: Any, workspace: Path | None, warnings: list[str]) -> Any:
    """Rewrite the clients' `${input:..}`, `${env:..}`, `${userHome}`, `${workspaceFolder}` to ours."""

    def rewrite(match: re.Match[str]) -> str:
        inner = match.group(1)
        scheme, _, rest = inner.partition(":")
        if scheme == "input" and rest:
            return "${" + SECRET_PREFIX + secret_name_for_input(rest) + "}"
        if scheme == "env" and rest:
            return "${" + rest + "}"
        if inner == "userHome":
            return str(Path.home())
        if inner == "workspaceFolder" and workspace is not None:
            return str(workspace)
        if inner == "workspaceFolder" or ":" in inner:
            warnings.append(f"${{{inner}}} has no equivalent in MCP Desk; edit the server before connecting.")
        return match.group(0)

    if isinstance(value, str):
        return _VARIABLE_RE.sub(rewrite, value)
    if isinstance(value, list):
        return [_convert(v, workspace, warnings) for v in value]
    if isinstance(value, dict):
        return {k: _convert(v, workspace, warnings) for k, v in value.items()}
    return value


def _adapt_sign_in(name: str, entry: Any, warnings: list[str]) -> Any:
    """A remote entry's sign-in settings in MCP Desk's `oauth` spelling.

    Cursor writes `"auth": {"CLIENT_ID", "CLIENT_SECRET", "scopes"}`; Claude Code writes `"oauth"`
    with `clientId` and `callbackPort` as we do, plus keys of its own, which are left behind.
    """
    if not isinstance(entry, dict) or "url" not in entry:
        return entry
    entry = dict(entry)
    cursor = entry.pop("auth", None)
    if isinstance(cursor, dict) and "oauth" not in entry:
        spelled = {"CLIENT_ID": "clientId", "CLIENT_SECRET": "clientSecret", "scopes": "scopes"}
        entry["oauth"] = {spelled[key]: value for key, value in cursor.items() if key in spelled}
    oauth = entry.get("oauth")
    if isinstance(oauth, dict):
        dropped = sorted(key for key in oauth if key not in OAUTH_KEYS)
        if dropped:
            warnings.append(f"{name}: sign-in settings {', '.join(dropped)} are not used by MCP Desk.")
        entry["oauth"] = {key: value for key, value in oauth.items() if key in OAUTH_KEYS}
        secret = entry["oauth"].get("clientSecret")
        if isinstance(secret, str) and "${" not in secret:
            warnings.append(f"{name}: its client secret is written in the file; keep it as ${{secret:NAME}} instead.")
    return entry


def _input_descriptions(inputs: object) -> dict[str, str]:
    """VS Code `inputs` as secret name -> description (malformed entries are ignored)."""
    if not isinstance(inputs, list):
        return {}
    return {
        secret_name_for_input(item["id"]): str(item.get("description") or "")
        for item in inputs
        if isinstance(item, dict) and isinstance(item.get("id"), str)
    }

"""Import servers from Claude Desktop, Cursor and VS Code, never overwriting the user's own entries.

Claude Desktop and Cursor use the same `mcpServers` shape as `servers.json`; VS Code uses
`servers` plus `inputs` that prompt for values, which become `${secret:ID}` placeholders here so
the values go to the secret store instead of the config file.

An import is an install: the file may come from a cloned repository, so nothing in it may grant
itself trust. Keys that grant rights (`TRUST_KEYS`: trusted, autoApproveReadOnly, origin, roots) are
dropped and the report says so per server; an entry whose environment changes which program runs
or what it loads (`launch_env`: PATH, PYTHONPATH, LD_PRELOAD, …) is refused, as installs refuse it;
a bare command is resolved to the absolute path the app's PATH finds, as installs do, so the
review shows what will run. `import_servers` only reads: the caller shows the report, then saves.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal

from desktop_app.core.config_error import ConfigError, KeyPath
from desktop_app.core.config_file import load_json, servers_from_mapping
from desktop_app.core.expansion import SECRET_PREFIX, placeholders
from desktop_app.core.launch_env import Which, launch_names, program_path, refusal
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_entry import OAUTH_KEYS, SERVERS_KEY, TRUST_KEYS

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
class ImportedServer:
    """One new server of the file, as it would be saved, and what the import took from it or holds against it."""

    config: ServerConfig
    dropped: tuple[str, ...] = ()
    """The trust-granting keys (`TRUST_KEYS`) the file set, which are not imported."""
    launch_names: tuple[str, ...] = ()
    """Environment names that change which program runs or what it loads: the server is refused."""

    @property
    def refusal(self) -> str | None:
        """Why this server is not imported; None when it is."""
        if not self.launch_names:
            return None
        reason = refusal(list(self.launch_names), "imported entry", "imports")
        return f"{reason}. Add the server in the server editor if you mean it"

    @property
    def program_note(self) -> str:
        """Where the command was found, when that is not an absolute path ("" when it is)."""
        command = self.config.command or ""
        if not self.config.is_stdio or os.path.isabs(command):
            return ""
        if "${" in command:
            return "the command holds a variable, resolved when the server starts"
        if "/" in command or "\\" in command:
            return "a relative path: it runs from the server's working folder"
        return "not found on this computer's PATH"

    @property
    def dropped_line(self) -> str:
        """The user's words for what was dropped ("" when nothing was)."""
        if not self.dropped:
            return ""
        return f"dropped {', '.join(self.dropped)}: set them in the server editor if you mean it"


@dataclass(frozen=True)
class ImportReport:
    """What an import would do, shown before anything is saved; `servers` is the merged result to save."""

    source: Path
    kind: ClientKind
    servers: dict[str, ServerConfig]
    added: list[str]
    skipped: list[str]
    unchanged: list[str]
    secrets_needed: list[SecretNeeded]
    warnings: list[str]
    new: dict[str, ImportedServer] = field(default_factory=dict)
    """Every server the file adds or was refused, by name, in the file's order."""

    @property
    def refused(self) -> list[str]:
        """New servers that are not imported (`ImportedServer.refusal` says why)."""
        return [name for name, server in self.new.items() if server.refusal is not None]

    @property
    def summary(self) -> str:
        """One paragraph for the user."""
        client = CLIENT_NAMES[self.kind]
        if not (self.added or self.skipped or self.unchanged or self.new):
            return f"No servers found in {client}'s {self.source}."
        parts = [f"From {client}: added {len(self.added)}" + _names(self.added)]
        if self.refused:
            parts.append(f"refused {len(self.refused)}" + _names(self.refused))
        if self.skipped:
            parts.append(f"skipped {len(self.skipped)} whose name is already used" + _names(self.skipped))
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} already present" + _names(self.unchanged))
        text = "; ".join(parts) + "."
        if self.secrets_needed:
            needed = ", ".join(f"{s.name} ({s.description})" if s.description else s.name for s in self.secrets_needed)
            text += f" Set these secrets before connecting: {needed}."
        judged = [f"{name}: {line}." for name, s in self.new.items() for line in (s.refusal, s.dropped_line) if line]
        return " ".join([text, *judged, *self.warnings])


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
    existing: Mapping[str, ServerConfig],
    source_path: Path,
    kind: ClientKind | None = None,
    *,
    which: Which = shutil.which,
) -> ImportReport:
    """What merging another client's file into `existing` would do; an existing name is never replaced.

    Writes nothing. `kind` is detected from the file's shape when None; `which` finds bare commands
    (the app's PATH). Raises `ConfigError` naming file and line.
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
    dropped: dict[str, tuple[str, ...]] = {}
    if isinstance(converted, dict):
        converted = {name: _adapt_sign_in(name, entry, warnings) for name, entry in converted.items()}
        converted = {name: _without_trust(name, entry, dropped) for name, entry in converted.items()}
    imported = servers_from_mapping(converted, text=text, source=source, at=at)
    if isinstance(mapping, dict):
        warnings += [
            f"{name}: envFile is not supported; copy its variables into env."
            for name, entry in mapping.items()
            if isinstance(entry, dict) and "envFile" in entry
        ]

    merged = dict(existing)
    added: list[str] = []
    skipped: list[str] = []
    unchanged: list[str] = []
    new: dict[str, ImportedServer] = {}
    for name, cfg in imported.items():
        resolved = _resolved(cfg, which)
        if name in existing:
            same = _same_server(existing[name], cfg) or _same_server(existing[name], resolved)
            (unchanged if same else skipped).append(name)
            continue
        risky = tuple(launch_names(cfg.env)) if cfg.is_stdio else ()
        new[name] = ImportedServer(resolved, dropped.get(name, ()), risky)
        if not risky:
            merged[name] = resolved
            added.append(name)

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
        new=new,
    )


def _same_server(ours: ServerConfig, theirs: ServerConfig) -> bool:
    """The same server, whichever of its tools or its trust the user set here (the other client cannot know)."""

    def launch(config: ServerConfig) -> ServerConfig:
        return replace(config, disabled_tools=(), trusted=False, auto_approve_read_only=False, origin={}, roots=None)

    return launch(ours) == launch(theirs)


def _without_trust(name: str, entry: Any, dropped: dict[str, tuple[str, ...]]) -> Any:
    """`entry` without its trust-granting keys; those it set to anything but their default go in `dropped`."""
    if not isinstance(entry, dict):
        return entry
    granted = tuple(key for key in TRUST_KEYS if key in entry and entry[key] not in (False, None, {}))
    if granted:
        dropped[name] = granted
    return {key: value for key, value in entry.items() if key not in TRUST_KEYS}


def _resolved(config: ServerConfig, which: Which) -> ServerConfig:
    """A bare command as the absolute path the app's PATH finds, as installs store it (else as written)."""
    command = config.command
    if not config.is_stdio or not command or "${" in command or "/" in command or "\\" in command:
        return config
    found = program_path(command, which)
    return replace(config, command=found) if found else config


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

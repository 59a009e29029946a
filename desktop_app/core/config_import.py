"""Import servers from Claude Desktop, Claude Code, GitHub Copilot, Cursor and VS Code, never
overwriting the user's own entries.

Claude Desktop, Claude Code (`.mcp.json`, `~/.claude.json`), GitHub Copilot (`~/.copilot/mcp-config.json`)
and Cursor use the same `mcpServers` shape as `servers.json`; VS Code uses `servers` plus `inputs` that
prompt for values. Their placeholders become ours: `${input:ID}` a `${secret:ID}` (the value goes to the
secret store, not the config file), `${env:X}` a `${X}`; `${X}` and `${secret:NAME}` (our own exports)
stay. Copilot's `"type": "local"` is stdio and its `tools` list is left behind (MCP Desk switches tools
off, it keeps no allow list).

An import is an install: the file may come from a cloned repository, so nothing in it may grant
itself trust. Keys that grant rights (`TRUST_KEYS`: trusted, autoApproveReadOnly, origin, roots) are
dropped and the report says so per server; an entry whose environment changes which program runs
or what it loads (`launch_env`: PATH, PYTHONPATH, LD_PRELOAD, …) is refused, as installs refuse it, and
so is one whose placeholders name the app's own secrets (the model key, sign-in tokens);
a bare command is resolved to the absolute path the app's PATH finds, as installs do, so the
review shows what will run. `import_servers` only reads: the caller shows the report, then saves.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from desktop_app.core.config_error import ConfigError, KeyPath
from desktop_app.core.config_file import load_json, servers_from_mapping
from desktop_app.core.expansion import SECRET_PREFIX, placeholders
from desktop_app.core.import_report import (
    APP_SECRET_PREFIXES,
    CLIENT_NAMES,
    ClientKind,
    ImportedServer,
    ImportReport,
    ImportSource,
    SecretNeeded,
)
from desktop_app.core.launch_env import Which, launch_names, program_path
from desktop_app.core.server_config import JWT_BEARER_GRANT, ServerConfig
from desktop_app.core.server_entry import OAUTH_ASSERTION_KEYS, OAUTH_KEYS, SERVERS_KEY, TRUST_KEYS

_VARIABLE_RE: Final = re.compile(r"\$\{([^}]*)\}")
_NOT_SECRET_CHAR_RE: Final = re.compile(r"[^A-Za-z0-9_.-]")
__all__ = [  # the report's types, for the callers that import them from here
    "CLIENT_NAMES",
    "ClientKind",
    "ImportReport",
    "ImportSource",
    "ImportedServer",
    "SecretNeeded",
    "import_servers",
    "known_sources",
    "secret_name_for_input",
    "strip_jsonc",
]
_ALL_TOOLS: Final = ["*"]
"""GitHub Copilot's `tools` value for every tool (any other list is an allow list MCP Desk does not keep)."""


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
        ("claude-code", home / ".claude.json"),
        ("copilot", home / ".copilot" / "mcp-config.json"),
        ("cursor", home / ".cursor" / "mcp.json"),
        ("vscode", app_data / "Code" / "User" / "mcp.json"),
    ]
    if workspace is not None:
        found += [
            ("claude-code", workspace / ".mcp.json"),
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

    warnings: list[str] = []
    converted = _convert(mapping, _workspace(source_path), warnings)
    dropped: dict[str, tuple[str, ...]] = {}
    if isinstance(converted, dict):
        converted = {name: _adapt_client_keys(name, entry, warnings) for name, entry in converted.items()}
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
        taken = tuple(sorted(secret for secret in placeholders(cfg) if secret.startswith(APP_SECRET_PREFIXES)))
        new[name] = ImportedServer(resolved, dropped.get(name, ()), risky, taken)
        if not risky and not taken:
            merged[name] = resolved
            added.append(name)

    descriptions = _input_descriptions(doc.get("inputs"))
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
            kind = _servers_kind(path)
        elif vscode_at is not None:
            kind = "vscode"
        else:
            raise ConfigError(
                f'no "{SERVERS_KEY}" (Claude, Copilot, Cursor) or "servers" (VS Code) found', file=str(path)
            )
    at = vscode_at if kind == "vscode" else ((SERVERS_KEY,) if SERVERS_KEY in doc else None)
    if at is None:
        key = "servers" if kind == "vscode" else SERVERS_KEY
        raise ConfigError(f'no "{key}" found; is this a {CLIENT_NAMES[kind]} file?', file=str(path))
    return kind, at


def _servers_kind(path: Path) -> ClientKind:
    """Which client writes `mcpServers` at `path` (the shape is the same: the name is only for the user)."""
    if ".cursor" in path.parts:
        return "cursor"
    if ".copilot" in path.parts:
        return "copilot"
    if path.name in (".mcp.json", ".claude.json"):
        return "claude-code"
    return "claude"


def _workspace(path: Path) -> Path | None:
    """The project folder a project-level file belongs to (`${workspaceFolder}`), None for a user's file."""
    if path.parent.name in (".vscode", ".cursor"):
        return path.parent.parent
    return path.parent if path.name == ".mcp.json" else None


def _adapt_client_keys(name: str, entry: Any, warnings: list[str]) -> Any:
    """GitHub Copilot's spellings as ours: `"type": "local"` is stdio; its `tools` allow list is left behind."""
    if not isinstance(entry, dict):
        return entry
    entry = dict(entry)
    if entry.get("type") == "local":
        entry["type"] = "stdio"
    tools = entry.pop("tools", None)
    if tools is not None and tools != _ALL_TOOLS:
        warnings.append(
            f"{name}: its list of allowed tools is not imported; switch tools off in its Tools list instead."
        )
    return entry


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
        if inner.startswith(SECRET_PREFIX):
            return match.group(0)  # ours, as `mcp-desk export` writes it
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
        dropped = sorted(key for key in oauth if key not in OAUTH_KEYS and key not in OAUTH_ASSERTION_KEYS)
        if dropped:
            warnings.append(f"{name}: sign-in settings {', '.join(dropped)} are not used by MCP Desk.")
        entry["oauth"] = {key: value for key, value in oauth.items() if key in OAUTH_KEYS}
        # Where a workload's JWT is read from is the user's to say: a file never brings it.
        sources = sorted(key for key in oauth if key in OAUTH_ASSERTION_KEYS)
        if sources or entry["oauth"].get("grant") == JWT_BEARER_GRANT:
            if entry["oauth"].get("grant") == JWT_BEARER_GRANT:
                del entry["oauth"]["grant"]
            warnings.append(
                f"{name}: where its workload JWT is read from ({', '.join(sources) or 'not given'}) was left out, so it"
                " signs in with the browser; set it yourself in MCP Desk if you trust this server."
            )
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

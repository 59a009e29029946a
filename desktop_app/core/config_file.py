"""The user's `servers.json`, in Claude Desktop's `mcpServers` shape: read, checked, saved.

Users copy entries between clients and hand-edit this file, so errors must name the file, line
and field (`config_error`, `json_positions`), and a file that does not parse is never overwritten
(their edit would be lost). One entry's fields are `server_entry`'s.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.config_error import ConfigError, KeyPath, schema_error
from desktop_app.core.json_positions import line_of
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_entry import KNOWN_SERVER_KEYS, SERVERS_KEY, server_from_dict, server_to_dict


@dataclass(frozen=True)
class ConfigLoad:
    """The outcome of reading `servers.json`: the app starts even when `error` is set."""

    servers: dict[str, ServerConfig]
    error: ConfigError | None
    path: Path
    # The parsed document, so a rewrite keeps keys this app does not know about.
    raw: dict[str, Any] | None = None


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
            raise schema_error(at, "must be an object mapping server names to settings")
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
    if previous is not None and previous.strip():
        atomic_write(path.with_name(path.name + ".bak"), previous)
    atomic_write(path, text)

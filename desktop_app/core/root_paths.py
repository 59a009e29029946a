"""Root entries as the user writes them (paths, `~`, `$VARS`, file:// URIs) and as servers see them.

Kept free of the rest of the core so the configuration file can check entries while it loads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePath
from urllib.parse import unquote, urlsplit

_VAR = re.compile(r"\$(?:(\w+)|\{(\w+)\})")


def root_problem(entry: str) -> str | None:
    """Why `entry` cannot be a root, or None (used to check `servers.json` and the editors)."""
    text = entry.strip()
    if not text:
        return "is empty"
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme.lower() != "file":
            return "must be a folder path or a file:// URI"
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            return "must be a local, absolute file:// URI such as file:///home/me/notes"
    return None


def root_uri(entry: str, environ: Mapping[str, str] | None = None) -> str:
    """The `file://` URI of a root entry; raises ValueError when `root_problem` finds one."""
    problem = root_problem(entry)
    if problem is not None:
        raise ValueError(f"root '{entry}' {problem}")
    text = entry.strip()
    if text.lower().startswith("file://"):
        return text
    env = os.environ if environ is None else environ
    expanded = os.path.expanduser(_expand(text, env))
    return PurePath(os.path.abspath(expanded)).as_uri()


def _expand(text: str, env: Mapping[str, str]) -> str:
    """`$VAR`/`${VAR}` from `env`; unknown ones are left as typed."""
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), text)


def root_name(uri: str) -> str:
    """The folder's own name, for the server's display."""
    path = unquote(urlsplit(uri).path).rstrip("/")
    return path.rsplit("/", 1)[-1] or "/"


def effective_roots(own: tuple[str, ...] | None, defaults: Iterable[str], extra: Iterable[str]) -> list[str]:
    """The entries a server gets: its own list (or the defaults), then the extra ones, each once."""
    chosen = list(own if own is not None else defaults) + list(extra)
    return list(dict.fromkeys(entry.strip() for entry in chosen if entry.strip()))

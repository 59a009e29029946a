"""The command line that runs a server inside bubblewrap, and the places it hides.

The server sees the whole filesystem read-only, minus the places secrets live (each hidden under an
empty tmpfs, a file under /dev/null), with its own /tmp, /dev, /proc and /run. It may write only to
`allowWrite`, its roots and its own package caches. It has no network: an entry that lists
`allowedDomains` gets the app's filtering proxy, its Unix socket bound into the sandbox and served on the
sandbox's own loopback by `forwarder`, which then runs the server. It runs in its own user,
PID, IPC, UTS and network namespaces with no capabilities: as root, sharing the PID namespace would
let it reach the host's files through `/proc/<pid>/root`. `denyWrite` and hidden places are mounted
last, so they win over a writable parent.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

from desktop_app.core import paths
from desktop_app.core.config_error import ConfigError
from desktop_app.core.sandbox import forwarder
from desktop_app.core.sandbox.settings import SandboxSettings

ISOLATION: Final = (
    "--unshare-user",
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
)
"""Namespaces and limits every sandboxed server gets (the probe checks that exactly these work)."""

SECRET_PLACES: Final = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".password-store",
    ".local/share/keyrings",
    ".local/share/python_keyring",
    ".mozilla",
    ".thunderbird",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    ".config/Claude",
    ".cursor",
)
"""Under the user's home: keys, tokens, browser profiles, keyrings, other clients' server settings."""
SYSTEM_SECRETS: Final = ("/etc/shadow", "/etc/gshadow", "/etc/ssh/ssh_host_*_key")
"""Readable by root's uid even without capabilities."""
PACKAGE_CACHES: Final = (".npm", ".cache/uv", ".cache/pip")
"""npx, uvx and pip write here to start a server. Each sandboxed server gets its own copies (kept
between starts), never the user's: a shared cache it could write would let it plant code that an
unsandboxed server runs later."""
_PRIVATE_PLACES: Final = ("/tmp", "/run", "/var/run", "/dev/shm")
"""Its own empty temporary folders; /run also hides the sockets of the session bus, agents and daemons,
which a read-only mount would still let it connect to."""
_SHEBANG_HOPS: Final = 4
"""How many interpreters that are scripts themselves Linux follows from one `#!` line."""
_SHEBANG_BYTES: Final = 256
"""The longest `#!` line Linux reads."""
PROXY_SOCKET_NAME: Final = "mcp-desk-proxy.sock"
"""The filtering proxy's socket, in the sandbox's private /run (or /tmp where /run is not a folder)."""


@dataclass(frozen=True)
class Layout:
    """The host's places a sandbox is built around: the user's home, the app's own folders, and where
    each server's private package caches are kept."""

    home: Path
    app_folders: tuple[Path, ...]
    caches: Path


def cache_folder(layout: Layout, server: str) -> Path:
    """Where server `server`'s private package caches live (its name made safe for a folder)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]", "_", server)[:40]
    return layout.caches / f"{slug}-{hashlib.sha256(server.encode()).hexdigest()[:8]}"


def expanded_path(path: str, home: Path, server: str) -> str:
    if path == "~" or path.startswith("~/"):
        path = str(home) + path[1:]
    if "${" in path or not os.path.isabs(path):
        raise ConfigError(f"server '{server}': sandbox path {path!r} is not an absolute path once expanded")
    return os.path.normpath(path)


def root_path(root: str) -> str:
    parts = urlsplit(root)
    return unquote(parts.path) if parts.scheme == "file" else root


def _hide(path: str) -> list[str]:
    """An empty tmpfs over a folder, /dev/null over a file (the real path too, when `path` is a link)."""
    out: list[str] = []
    for place in dict.fromkeys((path, os.path.realpath(path))):
        if os.path.isdir(place):
            out += ["--tmpfs", place]
        elif os.path.lexists(place):
            out += ["--ro-bind", "/dev/null", place]
    return out


def interpreters(path: str) -> list[str]:
    """The programs a script's `#!` line runs, following an interpreter that is itself a script as the kernel
    does; a name after `env` (`#!/usr/bin/env python3`) is found on PATH as `env` would. Only executable
    files count (a line naming a socket or a folder runs nothing); empty for anything but a script."""
    found: list[str] = []
    for _ in range(_SHEBANG_HOPS):
        if not os.path.isfile(path):  # never open a pipe or a device: reading it could block
            break
        try:
            with open(path, "rb") as file:
                line = file.readline(_SHEBANG_BYTES)
        except OSError:
            break
        words = line[2:].decode(errors="replace").split() if line.startswith(b"#!") else []
        program: str | None = words[0] if words else None
        if program is not None and os.path.basename(program) == "env":
            named = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
            program = shutil.which(named[0]) if named else None
        if not program or not os.path.isabs(program) or not os.path.isfile(program) or not os.access(program, os.X_OK):
            break
        found.append(program)
        path = program
    return found


def launch_folders(launched: Sequence[str], cwd: str | None, private_places: Iterable[str]) -> list[str]:
    """The folders inside a private place (/tmp, /run, /dev/shm) that the server is launched from: its program,
    the files its arguments name, the interpreters their `#!` lines run (`interpreters`) and its working
    folder, each as the top folder within that place.

    A private place is replaced by an empty one, which would hide the server's own program when it lives there
    (a checkout in /tmp, a script whose interpreter is a virtual environment there); that one folder stays
    readable, the rest of the place stays hidden, and secret places inside it are hidden after, so they still
    win."""
    places = tuple(dict.fromkeys(private_places))
    found: list[str] = []
    named = [path for path in launched if os.path.isabs(path)]
    run = [program for script in named for program in interpreters(script)]
    for path in (*named, *run, *([cwd] if cwd else [])):
        if not os.path.isabs(path) or not os.path.exists(path):
            continue
        real = os.path.realpath(path)
        for form in dict.fromkeys((os.path.normpath(path), real)):
            for place in places:
                if form.startswith(place.rstrip("/") + "/"):
                    found.append(os.path.join(place, form[len(place.rstrip("/")) + 1 :].split("/")[0]))
    return list(dict.fromkeys(found))


def _present(paths: Iterable[str]) -> list[str]:
    return [p for p in dict.fromkeys(paths) if os.path.exists(p)]


def bubblewrap_command(
    program: str,
    command: str,
    args: Sequence[str],
    *,
    server: str,
    settings: SandboxSettings,
    roots: Sequence[str],
    cwd: str | None,
    layout: Layout,
    proxy_socket: str | None = None,
) -> list[str]:
    """`program <options> -- command args`, for a server whose paths are expanded (placeholders resolved);
    with `proxy_socket` (the filtering proxy's, on the host), `command` runs behind the forwarder.

    Creates the server's private caches, and their mount points in the home when missing.
    """
    home = layout.home
    writable = [expanded_path(p, home, server) for p in (*settings.allow_write, *map(root_path, roots))]
    read_only = [expanded_path(p, home, server) for p in settings.deny_write]
    hidden = [str(home / place) for place in SECRET_PLACES]
    hidden += [str(folder) for folder in layout.app_folders]
    hidden += [match for pattern in SYSTEM_SECRETS for match in glob.glob(pattern)]
    hidden += [expanded_path(p, home, server) for p in settings.deny_read]

    argv = [program, *ISOLATION, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    private_places = [place for place in _PRIVATE_PLACES if os.path.isdir(place) and not os.path.islink(place)]
    for place in private_places:
        argv += ["--tmpfs", place]
    launched = [command, *args]
    if proxy_socket is not None:
        if not private_places:
            raise ConfigError(f"server '{server}': no private /run or /tmp in the sandbox for its network proxy")
        # Read-only: the server may connect to the socket, not replace it.
        inside = os.path.join("/run" if "/run" in private_places else private_places[0], PROXY_SOCKET_NAME)
        argv += ["--ro-bind", proxy_socket, inside]
        launched = forwarder.command(inside, command, args)
    for folder in launch_folders(launched, cwd, private_places):
        argv += ["--ro-bind", folder, folder]
    private = cache_folder(layout, server)
    for cache in PACKAGE_CACHES:
        own, target = private / cache, home / cache
        own.mkdir(parents=True, exist_ok=True)
        target.mkdir(parents=True, exist_ok=True)
        argv += ["--bind", str(own), str(target)]
    for path in _present(writable):
        argv += ["--bind", path, path]
    for path in _present(read_only):
        argv += ["--ro-bind", path, path]
    for path in dict.fromkeys(hidden):
        argv += _hide(path)
    if cwd is not None:
        argv += ["--chdir", cwd]
    return [*argv, "--", *launched]


def default_layout() -> Layout:
    """This user's home and MCP Desk's own folders (hidden from every sandboxed server)."""
    caches = paths.cache_dir() / "sandbox"
    return Layout(Path.home(), (paths.config_dir(), paths.data_dir(), paths.cache_dir()), caches)


def started_notes(settings: SandboxSettings | None) -> list[tuple[str, str]]:
    """The server log's line (level, text) when a sandboxed server is up: what it may reach."""
    allowed = settings.allowed_domains if settings is not None else ()
    if not allowed:
        return [("info", "sandboxed: bubblewrap (files read-only, secrets hidden, no network)")]
    reach = f"network only to {', '.join(allowed)} through the sandbox's proxy"
    if settings is not None and settings.denied_domains:
        reach += f", never to {', '.join(settings.denied_domains)}"
    return [("info", f"sandboxed: bubblewrap (files read-only, secrets hidden, {reach})")]

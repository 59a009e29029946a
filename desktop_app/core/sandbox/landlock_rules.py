"""The Landlock ruleset for one server, and the command line that applies it before the server starts.

Landlock only allows: "everything but the secrets" has to be spelled as the paths that reach everything else.
From `/` down, a folder with nothing hidden beneath it is granted whole; a folder with a hidden place beneath
it is not granted itself but each of its entries is, recursively, so only the hidden places stay out. The
same split keeps hidden places and `denyWrite` out of a writable folder (rules add up, so a writable parent
would otherwise win). What follows, by design:

- Folders on the way to a hidden place (`/`, `/etc`, the home) can be entered but not listed, and an entry
  made in one of them after the server starts is out of its reach.
- Symbolic links are skipped: Landlock judges the file a path resolves to, reached where it really is.
- `/tmp`, `/run` and `/dev/shm` are hidden (a root or `allowWrite` inside them is still granted, as bubblewrap
  mounts it); the server gets a private temporary folder (`TMPDIR`) and its own package caches
  (`npm_config_cache`, `UV_CACHE_DIR`, `PIP_CACHE_DIR`) instead of bubblewrap's mounts.
- TCP: connect only to its proxy's loopback port (the port on any address: Landlock filters ports), bind
  nowhere; on ABI 1-3 not filtered at all.
- Landlock does not filter connecting to a Unix socket by path, UDP, or reading `/proc/<pid>/cmdline` of the
  user's other processes; it blocks ptrace and (ABI 6) abstract sockets and signals outside the sandbox.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Final

from desktop_app.core.sandbox import landlock_launcher
from desktop_app.core.sandbox.bubblewrap import (
    PACKAGE_CACHES,
    SECRET_PLACES,
    SYSTEM_SECRETS,
    Layout,
    cache_folder,
    expanded_path,
    launch_folders,
    root_path,
)
from desktop_app.core.sandbox.landlock import IOCTL_DEV, NETWORK_ABI, READ, READ_FILE, WRITE, WRITE_FILE, Rules
from desktop_app.core.sandbox.settings import SandboxSettings

PRIVATE_PLACES: Final = ("/tmp", "/run", "/var/run", "/dev/shm")
"""Shared with every other program: hidden, the server has its own temporary folder instead."""
DEVICES: Final = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
"""Devices a program writes to as a matter of course."""
CACHE_VARIABLES: Final = {".npm": "npm_config_cache", ".cache/uv": "UV_CACHE_DIR", ".cache/pip": "PIP_CACHE_DIR"}
"""Where npm, uv and pip are told to keep their caches (one per entry of `PACKAGE_CACHES`)."""
INLINE_RULES: Final = 64 * 1024
"""Longer rules (a home with thousands of entries) go in a file: Linux caps one argument at 128 KiB."""
RULES_FILE: Final = ".mcp-desk-landlock-rules.json"


def _inside(path: str, place: str) -> bool:
    return path == place or path.startswith(place.rstrip("/") + "/")


def cover(top: str, hidden: Collection[str]) -> list[str]:
    """Paths beneath which lies everything under `top` except the `hidden` places (real, normalised paths)."""
    top = os.path.realpath(top)
    if any(_inside(top, place) for place in hidden):
        return []
    if not any(_inside(place, top) for place in hidden):
        return [top]
    out: list[str] = []
    try:
        entries = sorted(os.scandir(top), key=lambda entry: entry.name)
    except OSError:
        return out  # cannot be listed: nothing beneath it is granted
    for entry in entries:
        if not entry.is_symlink():
            out += cover(entry.path, hidden)
    return out


def hidden_places(server: str, settings: SandboxSettings, layout: Layout) -> list[str]:
    """What the server may not read: bubblewrap's hidden places, the shared temporary folders and `denyRead`
    (each as written and as it really is, which differ for a link); missing ones too, should they appear."""
    home = layout.home
    places = [str(home / place) for place in SECRET_PLACES]
    places += [str(folder) for folder in layout.app_folders]
    places += [match for pattern in SYSTEM_SECRETS for match in (glob.glob(pattern) if "*" in pattern else [pattern])]
    places += list(PRIVATE_PLACES)
    places += [expanded_path(p, home, server) for p in settings.deny_read]
    return list(dict.fromkeys(form for place in places for form in (os.path.normpath(place), os.path.realpath(place))))


def build_rules(
    server: str,
    settings: SandboxSettings,
    roots: Sequence[str],
    layout: Layout,
    temp_dir: str,
    proxy_socket: str | None = None,
    launched: Sequence[str] = (),
    cwd: str | None = None,
) -> Rules:
    """Read and execute everywhere but the hidden places; write to `allowWrite`, the roots (minus hidden places
    and `denyWrite`), `temp_dir` and the server's own caches; no TCP but to its proxy, when it has one."""
    home = layout.home
    hidden = hidden_places(server, settings, layout)
    # Like bubblewrap's mounts: a writable path inside /tmp or /run is reachable, one inside a secret is not.
    shared = {form for place in PRIVATE_PLACES for form in (place, os.path.realpath(place))}
    not_writable = [place for place in hidden if place not in shared]
    not_writable += [os.path.realpath(expanded_path(p, home, server)) for p in settings.deny_write]
    grants: list[tuple[str, int]] = [(path, READ) for path in cover("/", hidden)]
    for folder in launch_folders(launched, cwd, PRIVATE_PLACES):  # its own program, where a private place hides it
        grants += [(path, READ) for path in cover(folder, not_writable)]
    writable = [expanded_path(p, home, server) for p in (*settings.allow_write, *map(root_path, roots))]
    for place in dict.fromkeys(writable):
        grants += [(path, READ | WRITE) for path in cover(place, not_writable)]
    private = cache_folder(layout, server)
    environment = [("TMPDIR", temp_dir), ("TMP", temp_dir), ("TEMP", temp_dir)]
    for cache in PACKAGE_CACHES:
        own = private / cache
        own.mkdir(parents=True, exist_ok=True)
        grants.append((str(own), READ | WRITE))
        environment.append((CACHE_VARIABLES[cache], str(own)))
    grants.append((temp_dir, READ | WRITE))
    grants += [(device, READ_FILE | WRITE_FILE | IOCTL_DEV) for device in DEVICES]
    return Rules(tuple(grants), (), tuple(environment), proxy_socket)


def landlock_command(
    command: str,
    args: Sequence[str],
    *,
    server: str,
    settings: SandboxSettings,
    roots: Sequence[str],
    layout: Layout,
    temp_dir: str,
    proxy_socket: str | None = None,
    cwd: str | None = None,
) -> list[str]:
    """The command line that confines `command args` with Landlock and then runs it: the bundle's binary with the
    hidden flag when frozen, else the launcher's file run by the app's Python, isolated and without `site`. The
    rules are one argument, or `@FILE` in `temp_dir` when too long for one."""
    rules = build_rules(server, settings, roots, layout, temp_dir, proxy_socket, [command, *args], cwd).to_json()
    if len(rules) > INLINE_RULES:
        path = os.path.join(temp_dir, RULES_FILE)
        Path(path).write_text(rules, encoding="utf-8")
        rules = "@" + path
    launcher = os.path.abspath(landlock_launcher.__file__)
    frozen = getattr(sys, "frozen", False)
    runner = [sys.executable, landlock_launcher.FLAG] if frozen else [sys.executable, "-I", "-S", launcher]
    return [*runner, rules, "--", command, *args]


def private_temp_parent(layout: Layout, server: str) -> Path:
    """Where a server's private temporary folders are made (one per start, removed when it stops)."""
    folder = cache_folder(layout, server) / "tmp"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def started_notes(settings: SandboxSettings | None, abi: int) -> list[tuple[str, str]]:
    """The server log's line (level, text) when a Landlock-confined server is up: what it may reach."""
    allowed = settings.allowed_domains if settings is not None else ()
    if abi < NETWORK_ABI:
        reach = f"network not filtered: this kernel's Landlock (ABI {abi}) cannot restrict TCP"
    elif not allowed:
        reach = "no TCP network"
    else:
        reach = f"TCP only to {', '.join(allowed)} through the sandbox's proxy"
        if settings is not None and settings.denied_domains:
            reach += f", never to {', '.join(settings.denied_domains)}"
    return [("info", f"sandboxed: Landlock (files read-only, secrets hidden, {reach})")]

"""What the sandbox refused a server, as data the window and `mcp-desk run` can offer to allow.

Two kinds: a write the read-only filesystem refused (seen in the server's stderr, in the words Python,
Node and the shell use) and a host the proxy refused (its own log line, `refusals.refused_host`). The
server's stderr is attacker text, so a path is offered only when it is absolute, plainly a folder here,
and nowhere the sandbox hides on purpose: keys, browser profiles, MCP Desk's own folders, `denyRead`,
`denyWrite`, system places. What is offered is exactly one folder or host; only the user's click adds it.
"""

from __future__ import annotations

import glob
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, Literal

from desktop_app.core.config_error import ConfigError
from desktop_app.core.sandbox.bubblewrap import SECRET_PLACES, SYSTEM_SECRETS, Layout, default_layout
from desktop_app.core.sandbox.refusals import NOT_ALLOWED, refused_host
from desktop_app.core.sandbox.settings import SandboxSettings, sandbox_from_dict

Kind = Literal["write", "host"]
Note = Callable[[str, str], None]

_REFUSED_WORDS: Final = re.compile(
    r"Permission denied|Read-only file system|Operation not permitted|\bEACCES\b|\bEROFS\b|\bEPERM\b",
    re.IGNORECASE,
)
_QUOTED_PATH: Final = re.compile(r"""'(/[^'\n\x00]{0,4000})'|"(/[^"\n\x00]{0,4000})\"""")
_SYSTEM_PLACES: Final = ("/proc", "/sys", "/dev", "/boot", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64")
NAMED_TARGETS: Final = 10
"""Refused places named in the log one by one; further ones are only counted."""


@dataclass(frozen=True)
class Denial:
    """One thing the sandbox refused that the user may allow: a folder to write to, or a host to reach."""

    kind: Kind
    target: str

    @property
    def key(self) -> str:
        """The entry's key that allows it."""
        return "allowWrite" if self.kind == "write" else "allowedDomains"

    def question(self, server: str) -> str:
        """The confirmation, naming exactly what would be allowed."""
        what = f"writing to {self.target}" if self.kind == "write" else f"connections to {self.target}"
        return f"Allow {what} for '{server}'?"

    def line(self, server: str) -> str:
        """One line for a log or a terminal: what was refused and the key that would allow it."""
        what = f"writing to {self.target}" if self.kind == "write" else f"a connection to {self.target}"
        return f"server '{server}': the sandbox refused {what}; to allow it, add \"{self.target}\" to {self.key}"


def refused_path(line: str) -> str | None:
    """The absolute path a refused-write stderr line names (Python's, Node's or the shell's words), else None."""
    if not _REFUSED_WORDS.search(line):
        return None
    found: list[str] = [a or b for a, b in _QUOTED_PATH.findall(line)]
    if len(set(found)) != 1:  # none, or several (a rename): not one clear place
        return None
    return found[0]


def _within(path: str, place: str) -> bool:
    place = os.path.normpath(place)
    return path == place or path.startswith(place.rstrip("/") + "/")


def _expanded(path: str, home: Path) -> str | None:
    if path == "~" or path.startswith("~/"):
        path = str(home) + path[1:]
    return os.path.normpath(path) if os.path.isabs(path) and "${" not in path else None


def _forbidden(layout: Layout, settings: SandboxSettings | None) -> list[str]:
    """Places never offered: hidden on purpose, denied by the entry, or the system's own."""
    places = [str(layout.home / place) for place in SECRET_PLACES]
    places += [str(folder) for folder in layout.app_folders]
    places += [match for pattern in SYSTEM_SECRETS for match in glob.glob(pattern)]
    places += list(_SYSTEM_PLACES)
    if settings is not None:
        places += [p for p in map(lambda s: _expanded(s, layout.home), settings.deny_read + settings.deny_write) if p]
    return places


def writable_folder(path: str, layout: Layout, settings: SandboxSettings | None = None) -> str | None:
    """The one folder to offer for a refused write to `path`: the folder itself, else the folder it is in.

    None when nothing should be offered: a relative or odd path, a secret or system place (or one that
    would uncover one: a folder holding a hidden place), `/` or the home folder itself."""
    if not os.path.isabs(path) or any(c in path for c in "\n\r\x00"):
        return None
    path = os.path.normpath(path)
    folder = path if os.path.isdir(path) and not os.path.islink(path) else os.path.dirname(path)
    if not os.path.isdir(folder) or os.path.islink(folder):
        return None
    real = os.path.realpath(folder)
    if len(Path(real).parts) < 3 or real == os.path.realpath(layout.home):  # /, /home, /var, the home itself
        return None
    for place in _forbidden(layout, settings):
        for candidate in {folder, real}:
            if _within(candidate, place) or _within(os.path.normpath(place), candidate):
                return None
    return folder


def allowable_host(host: str) -> str | None:
    """`host` as `allowedDomains` would hold it, or None when it is no plain domain name."""
    try:
        settings = sandbox_from_dict({"network": {"allowedDomains": [host]}}, ("sandbox",))
    except ConfigError:
        return None
    return settings.allowed_domains[0] if not host.startswith("*.") else None


def allowed(settings: SandboxSettings | None, denial: Denial) -> SandboxSettings:
    """`settings` widened by exactly `denial` (the entry's other keys as they were)."""
    settings = settings or SandboxSettings()
    if denial.kind == "write":
        if denial.target in settings.allow_write:
            return settings
        return replace(settings, allow_write=(*settings.allow_write, denial.target))
    if denial.target in settings.allowed_domains:
        return settings
    return replace(settings, allowed_domains=(*settings.allowed_domains, denial.target))


class Denials:
    """What the sandbox refused one server in its current run: counted, named in the log a few times, and the
    latest refusal the user could allow kept as `offer`."""

    def __init__(self, note: Note, layout: Callable[[], Layout] = default_layout) -> None:
        self._note = note
        self._layout = layout
        self.settings: SandboxSettings | None = None
        self.counts: Counter[Denial] = Counter()
        self.offer: Denial | None = None
        self.version = 0
        """Bumped whenever `offer` changes, so a view redraws only then."""

    def reset(self, settings: SandboxSettings | None) -> None:
        """A new run with these settings: earlier refusals no longer say anything."""
        self.settings = settings
        self.counts.clear()
        if self.offer is not None:
            self.offer = None
            self.version += 1

    def saw_stderr(self, line: str) -> Denial | None:
        """A stderr line of the server; a refused write it names is counted and, if offerable, offered."""
        path = refused_path(line)
        if path is None:
            return None
        folder = writable_folder(path, self._layout(), self.settings)
        return self._refused(Denial("write", folder)) if folder is not None else None

    def saw_note(self, text: str) -> Denial | None:
        """A host line; the proxy's first refusal of a host not in `allowedDomains` is offered."""
        refused = refused_host(text)
        if refused is None or refused[1] != NOT_ALLOWED:
            return None
        host = allowable_host(refused[0])
        return self._refused(Denial("host", host)) if host is not None else None

    def _refused(self, denial: Denial) -> Denial:
        first = denial not in self.counts
        if first and len(self.counts) >= NAMED_TARGETS:
            return denial  # a flood of places: the log already says more than enough
        self.counts[denial] += 1
        if self.offer != denial:
            self.offer = denial
            self.version += 1
        if first:  # after the offer changed: whoever reads this line sees it
            if denial.kind == "write":
                self._note("warning", f"sandbox refused writing to {denial.target} (not in allowWrite)")
            # The line before names what was refused (the proxy names a host itself); this one says how to allow it.
            what = f'"{denial.target}"' if denial.kind == "write" else "that host"
            self._note("info", f"to allow it, add {what} to {denial.key} (or use Allow… in the Servers panel)")
        return denial

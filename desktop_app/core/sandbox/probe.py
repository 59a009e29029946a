"""What this system can confine a server with, asked once per process and kept.

Tiers, best first: bubblewrap (namespaces: its own view of the filesystem, no network of its own) where it can
run; Landlock (the kernel's allow-list of paths, and of TCP ports from ABI 4, with `no_new_privs`) where it
cannot, as where unprivileged user namespaces are disabled. A sandboxed entry never falls back to running
unconfined: where no tier works the server does not start, and `problem` tells the user why and what to do.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from desktop_app.core.config_error import ConfigError
from desktop_app.core.sandbox import landlock
from desktop_app.core.sandbox.bubblewrap import ISOLATION

Which = Callable[[str], str | None]
LandlockAbi = Callable[[], int]
"""The kernel's Landlock ABI version, or `OSError` saying why there is none (`landlock.abi_version`)."""

BUBBLEWRAP: Final = "bubblewrap"
"""The tier's name, as the Servers panel shows it ("sandboxed: bubblewrap")."""
LANDLOCK: Final = "Landlock"
NETWORK_NOT_FILTERED: Final = " — network not filtered"
"""Added to "sandboxed: Landlock" where the kernel's Landlock cannot filter TCP (ABI below 4)."""
INSTALL_HINT: Final = "install the bubblewrap package (apt install bubblewrap, dnf install bubblewrap)"
_PROBE_TIMEOUT_S: Final = 10.0


class SandboxUnavailable(ConfigError):
    """A sandboxed server cannot be confined here; like a configuration error it is not retried."""

    def __init__(self, message: str, problem: str) -> None:
        super().__init__(message)
        self.problem = problem
        """The probe's words: why no tier works here and what to install."""


@dataclass(frozen=True)
class SandboxSupport:
    """The tier that works here (bubblewrap's absolute path, or the Landlock ABI), or why none does."""

    tier: str | None
    program: str | None = None
    problem: str | None = None
    abi: int | None = None

    def require(self, server: str) -> SandboxSupport:
        """This support when a tier works, or `SandboxUnavailable` naming the server and the fix."""
        if self.tier is None:
            problem = self.problem or "no sandbox works here"
            raise SandboxUnavailable(
                f"server '{server}' is sandboxed (sandboxEnabled) but cannot start: {problem}", problem
            )
        return self

    @property
    def label(self) -> str | None:
        """What the Servers panel shows after "sandboxed: ": the tier, and what it cannot filter."""
        if self.tier == LANDLOCK and (self.abi or 0) < landlock.NETWORK_ABI:
            return LANDLOCK + NETWORK_NOT_FILTERED
        return self.tier


def probe(which: Which = shutil.which, landlock_abi: LandlockAbi = landlock.abi_version) -> SandboxSupport:
    """The best tier that works here: bubblewrap, else Landlock, else none with both reasons."""
    bubblewrap = probe_bubblewrap(which)
    if bubblewrap.tier is not None:
        return bubblewrap
    try:
        abi = landlock_abi()
    except OSError as exc:
        return SandboxSupport(None, problem=f"{bubblewrap.problem}; and {exc.strerror or exc}")
    return SandboxSupport(LANDLOCK, abi=abi)


def probe_bubblewrap(which: Which = shutil.which) -> SandboxSupport:
    """Run bubblewrap once with the namespaces every sandboxed server gets: found and working, or why not."""
    program = which("bwrap")
    if program is None:
        return SandboxSupport(None, problem=f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}")
    try:
        done = subprocess.run(
            [program, "--ro-bind", "/", "/", *ISOLATION, "--", "true"],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxSupport(None, problem=f"bubblewrap ({program}) could not run: {exc}")
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        return SandboxSupport(
            None,
            problem=f"bubblewrap cannot create namespaces here ({said[0]}); allow unprivileged user namespaces "
            "(sysctl kernel.unprivileged_userns_clone=1) or run bwrap setuid",
        )
    return SandboxSupport(BUBBLEWRAP, program)


@functools.cache
def system_support() -> SandboxSupport:
    """`probe()` of this system, run the first time a sandboxed server starts and then kept."""
    return probe()


def known_support() -> SandboxSupport | None:
    """`system_support()` once a sandboxed server's start has probed it, else None: never probes (it may run
    bwrap), so the window's thread can ask."""
    return system_support() if system_support.cache_info().currsize else None

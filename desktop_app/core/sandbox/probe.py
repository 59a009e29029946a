"""What this system can confine a server with, asked once per process and kept.

A sandboxed entry never falls back to running unconfined: where no tier works the server does not
start, and `problem` tells the user why and what to install.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from desktop_app.core.config_error import ConfigError
from desktop_app.core.sandbox.bubblewrap import ISOLATION

Which = Callable[[str], str | None]

BUBBLEWRAP: Final = "bubblewrap"
"""The tier's name, as the Servers panel shows it ("sandboxed: bubblewrap")."""
INSTALL_HINT: Final = "install the bubblewrap package (apt install bubblewrap, dnf install bubblewrap)"
_PROBE_TIMEOUT_S: Final = 10.0


class SandboxUnavailable(ConfigError):
    """A sandboxed server cannot be confined here; like a configuration error it is not retried."""


@dataclass(frozen=True)
class SandboxSupport:
    """The tier that works here (its program's absolute path), or why none does."""

    tier: str | None
    program: str | None = None
    problem: str | None = None

    def require(self, server: str) -> str:
        """The confining program's path, or `SandboxUnavailable` naming the server and the fix."""
        if self.program is None:
            raise SandboxUnavailable(
                f"server '{server}' is sandboxed (sandboxEnabled) but cannot start: {self.problem}"
            )
        return self.program


def probe(which: Which = shutil.which) -> SandboxSupport:
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

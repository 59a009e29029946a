"""What a server connection is doing right now, as the UI shows it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from desktop_app.core.sandbox.probe import known_support
from desktop_app.core.server_config import ServerConfig


class ServerState(StrEnum):
    DISABLED = "disabled"
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    RESTARTING = "restarting"
    STOPPED = "stopped"
    NEEDS_SIGN_IN = "needs sign-in"
    """The server answered 401: it waits for the user to sign in (no restart backoff)."""
    SIGNING_IN = "waiting for browser…"
    """A sign-in is open in the browser; it can be cancelled."""


@dataclass(frozen=True)
class ServerStatus:
    """A state plus the facts that explain it (why it failed, when it retries)."""

    state: ServerState
    reason: str | None = None
    stderr_tail: tuple[str, ...] = ()
    attempt: int = 0
    next_try_at: float | None = None
    protocol_version: str | None = None

    @property
    def summary(self) -> str:
        """One line for a status bar or tooltip."""
        if self.state is ServerState.RESTARTING:
            return f"restarting (attempt {self.attempt}): {self.reason or 'connection lost'}"
        if self.reason:
            return f"{self.state.value}: {self.reason}"
        return self.state.value

    def last_stderr(self, lines: int = 5) -> tuple[str, ...]:
        """A failed or restarting server's last non-blank stderr lines: often why, in its own words."""
        if self.state not in (ServerState.FAILED, ServerState.RESTARTING):
            return ()
        return tuple(line for line in self.stderr_tail if line.strip())[-lines:]

    def explained(self, lines: int = 5) -> str:
        """The summary, then the last stderr lines: for a tooltip or a details pane."""
        return "\n".join((self.summary, *self.last_stderr(lines)))


def protection(config: ServerConfig) -> str | None:
    """How a local server is confined, in the panel's words; None for a remote server (it runs elsewhere).

    A sandboxed server that cannot be confined here does not run at all: its status says why."""
    if not config.is_stdio:
        return None
    if not config.sandbox_enabled:
        return "not sandboxed"
    support = known_support()
    if support is None:
        return "sandboxed"  # not started yet: the tier is known once it is
    return f"sandboxed: {support.label or 'cannot start here'}"

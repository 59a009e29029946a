"""How one local server is confined at each start, and what the sandbox told about it.

The entry's `sandboxEnabled` decides, unless the organisation's policy requires the sandbox
(`"sandbox": {"required": true}`): then every local server runs sandboxed, with its own sandbox rights or the
defaults. Where no tier works here the user may run it unconfined for this run of the app only (`unconfined`,
kept in memory, never saved): their click in the Servers panel or `mcp-desk run --no-sandbox NAME`, never
while the policy requires the sandbox. A sandboxed server's roots are writable binds, so they are fixed at
its start (`launch`): when they change, the owner restarts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from desktop_app.core.events import Event, LogLine
from desktop_app.core.policy.refusal import Refusal
from desktop_app.core.sandbox import bubblewrap, landlock_rules
from desktop_app.core.sandbox.denials import Denials, Note
from desktop_app.core.sandbox.probe import LANDLOCK, SandboxUnavailable, system_support
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import protection


class Confinement:
    """One server's sandbox decisions: required, chosen away this time, or as its entry says."""

    def __init__(self, note: Note, required: Refusal | None = None) -> None:
        self.required = required
        """The organisation's rule that every local server runs sandboxed (None: the entry decides)."""
        self.unconfined = False
        """The user chose to run it without the sandbox for this run of the app (never saved)."""
        self.unavailable: str | None = None
        """Why its last start found no sandbox here (the probe's words, with what to install)."""
        self.way_out: str | None = None
        """What the front end offers instead, added to that failure (`mcp-desk run`: its flag)."""
        self.roots: tuple[str, ...] | None = None
        """The roots the running sandbox was started with (its writable binds); None when unconfined."""
        self.denials = Denials(note)
        """What the sandbox refused this run, and the one thing the user may allow (`denials.offer`)."""

    def sandboxed(self, config: ServerConfig) -> bool:
        """Whether `config` starts confined: a local server the entry or the policy sandboxes, not chosen away."""
        if not config.is_stdio:
            return False
        return self.required is not None or (config.sandbox_enabled and not self.unconfined)

    def protection(self, config: ServerConfig) -> str | None:
        """The panel's words for how `config` runs, as decided here."""
        return protection(replace(config, sandbox_enabled=self.sandboxed(config)))

    @property
    def offers_unconfined(self) -> bool:
        """The last start found no sandbox and the organisation lets the user run it without one."""
        return self.unavailable is not None and self.required is None

    def launch(self, config: ServerConfig, roots: Sequence[str]) -> ServerConfig:
        """The resolved entry as this attempt starts it: sandboxed or not as decided here; a sandboxed one with
        the roots it is offered now (`roots`, file:// URIs) as its writable folders."""
        sandboxed = self.sandboxed(config)
        self.unavailable = None
        self.denials.reset(config.sandbox if sandboxed else None)
        self.roots = tuple(roots) if sandboxed else None
        if not sandboxed:
            return replace(config, sandbox_enabled=False) if config.sandbox_enabled else config
        return replace(config, sandbox_enabled=True, roots=self.roots)

    def failed(self, exc: SandboxUnavailable) -> str:
        """Why it did not start, and what the user may do about it."""
        self.unavailable = exc.problem
        if self.required is not None:
            return f"{exc}; {self.required}"
        return f"{exc}; {self.way_out}" if self.way_out else str(exc)

    def restart_for(self, roots: Sequence[str]) -> bool:
        """Whether the running sandbox must restart to match `roots` (an unconfined server is only told)."""
        return self.roots is not None and tuple(roots) != self.roots

    def seen(self, event: Event, config: ServerConfig) -> None:
        """A sandboxed server's log line, read for what the sandbox refused."""
        if isinstance(event, LogLine) and self.sandboxed(config):
            if event.entry.source == "stderr":
                self.denials.saw_stderr(event.entry.text)
            elif event.entry.source == "host":
                self.denials.saw_note(event.entry.text)

    def started_notes(self, config: ServerConfig) -> list[tuple[str, str]]:
        """The log's line when a server is up: the tier's words when sandboxed, else none (or why it is not)."""
        if not self.sandboxed(config):
            if config.is_stdio and config.sandbox_enabled:
                return [("warning", "not sandboxed: you chose to run it without the sandbox this time")]
            return []
        support = system_support()
        if support.tier == LANDLOCK:
            return landlock_rules.started_notes(config.sandbox, support.abi or 0)
        return bubblewrap.started_notes(config.sandbox)

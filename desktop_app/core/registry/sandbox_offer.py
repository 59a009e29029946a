"""What an install's consent says about the sandbox, and the one place the user may go without it.

A local server installed from the registry or a bundle is planned sandboxed, with the rights its plan
derived (`sandbox.defaults`); an update keeps the sandbox the user gave the entry (`keeping_the_sandbox`).
The consent shows whether it will be sandboxed and exactly what it may write and reach, and lets the
user run it without the sandbox: a checkbox in the window, `--no-sandbox` on the command line. That
choice lives only in `SandboxOffer`: `required` greys it everywhere (for a policy that will demand the
sandbox). Where this computer cannot confine a server, the offer says so: the server, still sandboxed,
will not start until that is fixed, unless the user chooses to run it without; it never silently runs
unconfined.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from desktop_app.core.registry.plan import InstallPlan
from desktop_app.core.sandbox.probe import SandboxSupport
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.server_config import ServerConfig

UNSANDBOXED = (
    "Without the sandbox it runs with your permissions: it can read your keys and tokens, change any of your"
    " files and connect anywhere."
)


@dataclass(frozen=True)
class SandboxOffer:
    """The sandbox a local server is planned with, as the consent shows it."""

    settings: SandboxSettings
    enabled: bool
    """Planned sandboxed (the default for a new install; an update keeps the entry's choice)."""
    why: tuple[tuple[str, str], ...] = ()
    """(path or host, why the server may write or reach it), for the rights the plan derived."""
    tier: str | None = None
    """How this computer confines servers ("bubblewrap", "Landlock …"), None when it cannot."""
    problem: str | None = None
    """Why this computer cannot confine it now (`SandboxSupport.problem`)."""
    required: str | None = None
    """Why the user may not run it without the sandbox (an organisation's rule); None: they may."""

    def reason(self, right: str) -> str:
        return dict(self.why).get(right, "")

    def headline(self) -> str:
        """On (and how) or off, and what that means, in one line."""
        if not self.enabled:
            return f"off. {UNSANDBOXED}"
        how = f" ({self.tier})" if self.tier else ""
        return f"on{how}: it reads your files but not your keys, tokens or MCP Desk's own folders"

    def rights(self) -> list[str]:
        """What it may write and reach once sandboxed, each with why."""
        return [
            f"May write to: {self._listed(self.settings.allow_write, 'only its own temporary folders')}",
            f"May connect to: {self._listed(self.settings.allowed_domains, 'nothing (no network)')}",
        ]

    def unavailable(self) -> str | None:
        """Why it would not start sandboxed here (front ends add how to run it without), or None."""
        if self.problem is None:
            return None
        return f"This computer cannot sandbox it now: {self.problem}. Sandboxed, it will not start until that is fixed"

    def _listed(self, rights: tuple[str, ...], none: str) -> str:
        if not rights:
            return none
        return "; ".join(f"{right} ({why})" if (why := self.reason(right)) else right for right in rights)


def applies(config: ServerConfig) -> bool:
    """Whether the consent offers `config` a sandbox: a local server planned with one (not a remote, not a
    container image)."""
    return config.is_stdio and (config.sandbox is not None or config.sandbox_enabled)


def offer_for(plan: InstallPlan, support: SandboxSupport, *, required: str | None = None) -> SandboxOffer | None:
    """The offer for `plan`'s entry, or None when the sandbox does not apply (`applies`)."""
    config = plan.config
    if not applies(config):
        return None
    return SandboxOffer(
        settings=config.sandbox or SandboxSettings(),
        enabled=config.sandbox_enabled,
        why=tuple(plan.sandbox_why.items()),
        tier=support.label,
        problem=support.problem if support.tier is None else None,
        required=required,
    )


def choosing(config: ServerConfig, sandboxed: bool) -> ServerConfig:
    """`config` sandboxed or not as the user chose; going without keeps its `sandbox` object (as VS Code
    does), which is how an update knows the user chose to run it unsandboxed."""
    if config.sandbox_enabled == sandboxed:
        return config
    return replace(config, sandbox_enabled=sandboxed, sandbox=config.sandbox or SandboxSettings())


def keeping_the_sandbox(update: ServerConfig, previous: ServerConfig) -> ServerConfig:
    """An update keeps the sandbox the user gave the entry, on or off: a new version is no reason to run it
    with more rights than the one it replaces, nor to undo the user's choice to run it without. An entry with
    neither key was installed before installs were sandboxed: its update gets the default, which its consent
    shows like a new install's. A plan without a sandbox (a container image, a remote) has none to keep."""
    if not applies(update):
        return update
    if previous.sandbox is None and not previous.sandbox_enabled:
        return update
    return replace(update, sandbox_enabled=previous.sandbox_enabled, sandbox=previous.sandbox)

"""The policy in force: read once per process, asked by every place that decides.

Two files make it: policy.json (`document.py`) and `managed-mcp.json`, the server lists in the shape
other clients' managed settings use (`converged.py`). Both apply: a server runs only when neither
refuses it, and a denied server never runs, whatever allows it.

A file that is missing means no policy. A file that cannot be read or is not a valid policy blocks
nothing (an administrator's typo must not lock everyone out of their tools), and says why once:
as a warning in the log when it is first read, and as a notice the window and `mcp-desk policy`
show. Everything that decides asks this object: the host before it starts a server, installs
before they ask for consent, the approval gate, sampling, app views and Settings.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal

from desktop_app.core.policy.converged import NO_MANAGED_MCP, ManagedMcpInForce, load_managed_mcp
from desktop_app.core.policy.document import ManagedPolicy, PolicyError, read_policy
from desktop_app.core.policy.location import Location, managed_mcp_location, policy_location
from desktop_app.core.policy.refusal import FIXED, Refusal
from desktop_app.core.policy.servers import Installed, Which, server_refusal
from desktop_app.core.server_config import ServerConfig

log = logging.getLogger(__name__)

Feature = Literal["bundles", "apps", "sampling", "alwaysAllow"]
FEATURE_WORDS: Final[Mapping[Feature, str]] = {
    "bundles": "bundles (.mcpb files) cannot be installed",
    "apps": "app views are switched off",
    "sampling": "servers may not use your model (sampling)",
    "alwaysAllow": '"Always allow" is switched off and rules saved earlier are not applied',
}
EVERY_CALL_WORDS: Final = "every tool call needs your approval, each time"
SANDBOX_WORDS: Final = "local servers run only in the sandbox"


@dataclass(frozen=True)
class PolicyInForce:
    """The organisation's rules as this process follows them, and where they came from."""

    rules: ManagedPolicy = field(default_factory=ManagedPolicy)
    location: Location | None = None
    source: Path | None = None
    """The file the rules were read from; None when no policy is in force."""
    problem: str | None = None
    """Why a policy file is not followed (it blocks nothing), a paragraph for each; None when both are."""
    managed_mcp: ManagedMcpInForce = NO_MANAGED_MCP
    """The converged-shape file's lists (`managed-mcp.json`)."""

    # -- servers and installs ---------------------------------------------------------------

    def server_refusal(
        self, config: ServerConfig, which: Which = shutil.which, installed: Installed | None = None
    ) -> Refusal | None:
        """None when `config` may run (`servers.allow`, then `managed-mcp.json`'s lists, deny first);
        `installed`: see `servers.server_refusal`."""
        return (
            self.managed_mcp.denied(config, which)
            or server_refusal(self.rules, config, which, installed)
            or self.managed_mcp.not_allowed(config, which)
        )

    def install_refusal(self, config: ServerConfig, *, bundle: bool) -> str | None:
        """Why installing `config` is refused (None: it may be installed); the registry's installs ask this.

        The origin of a plan is the app's own (the install records it once saved), so it is believed here.
        """
        refusal = self.feature_refusal("bundles") if bundle else None
        registry = config.origin.get("registry")
        if refusal is None and registry:
            refusal = self.registry_refusal(registry)
        refusal = refusal or self.server_refusal(config, installed=_planned_here)
        return None if refusal is None else str(refusal)

    def registry_refusal(self, url: str) -> Refusal | None:
        """None when servers may be found and installed from the registry at `url`."""
        pinned = self.rules.registry
        if pinned is None or url.strip().rstrip("/").removesuffix("/v0.1") == pinned:
            return None
        return Refusal(f"servers come only from the registry {pinned}", "registry", self.rules.line("registry"))

    def registry_url(self, chosen: str) -> str:
        """The registry to read: the pinned one, else the user's choice."""
        return self.rules.registry or chosen

    # -- features ---------------------------------------------------------------------------

    def feature_refusal(self, feature: Feature) -> Refusal | None:
        """None when `feature` is on (it is unless the policy switches it off)."""
        on = {
            "bundles": self.rules.features.bundles,
            "apps": self.rules.features.apps,
            "sampling": self.rules.features.sampling,
            "alwaysAllow": self.rules.features.always_allow,
        }[feature]
        if on:
            return None
        name = f"features.{feature}"
        return Refusal(FEATURE_WORDS[feature], name, self.rules.line(name))

    def every_call(self) -> Refusal | None:
        """Set when every tool call must be put to the user (no rule, allowance or flag answers it)."""
        if not self.rules.every_call:
            return None
        return Refusal(EVERY_CALL_WORDS, "approvals.everyCall", self.rules.line("approvals.everyCall"))

    def sandbox_required(self) -> Refusal | None:
        """Set when every local server must run sandboxed: no entry, click or flag runs one without it."""
        if not self.rules.sandbox_required:
            return None
        return Refusal(SANDBOX_WORDS, "sandbox.required", self.rules.line("sandbox.required"))

    @property
    def identity_provider(self) -> Mapping[str, Any] | None:
        """The organisation's IdP in its JSON spelling; sign-in reads it with `IdentityProviderSettings`."""
        return self.rules.identity_provider

    def fixed(self, setting: Literal["registry", "identityProvider"]) -> str | None:
        """Why a setting cannot be changed in Settings (None: the user chooses it)."""
        if setting == "registry" and self.rules.registry is not None:
            return f"{FIXED}: {self.rules.registry} (registry)"
        if setting == "identityProvider" and self.rules.identity_provider is not None:
            return f"{FIXED}: {self.rules.identity_provider['issuer']} (identityProvider)"
        return None


def _planned_here(_config: ServerConfig) -> bool:
    return True


NO_POLICY: Final = PolicyInForce()
"""Nothing managed: for tests of everything else, and what a missing file means."""


def load_policy(location: Location) -> PolicyInForce:
    """Read the file at `location`: its rules, none, or a problem that blocks nothing."""
    try:
        rules = read_policy(location.path)
    except FileNotFoundError:
        if location.overridden:
            return PolicyInForce(location=location, problem=f"{location.path}: there is no such file")
        return PolicyInForce(location=location)
    except PolicyError as exc:
        return PolicyInForce(location=location, problem=str(exc))
    except OSError as exc:
        return PolicyInForce(location=location, problem=f"{location.path}: cannot be read ({exc.strerror or exc})")
    return PolicyInForce(rules, location, location.path)


def with_managed_mcp(policy: PolicyInForce, managed_mcp: ManagedMcpInForce) -> PolicyInForce:
    """Both files as one policy: each file's problem said, neither blocking for the other."""
    problems = [problem for problem in (policy.problem, managed_mcp.problem) if problem is not None]
    return replace(policy, managed_mcp=managed_mcp, problem="\n\n".join(problems) or None)


def _stat_key(path: Path) -> tuple[Path, int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (path, -1, -1)
    return (path, stat.st_mtime_ns, stat.st_size)


_lock = threading.Lock()
_read: dict[tuple[tuple[Path, int, int], tuple[Path, int, int]], PolicyInForce] = {}
_reported: set[str] = set()


def policy_in_force(environ: Mapping[str, str] = os.environ) -> PolicyInForce:
    """The policy this process follows; read again only when a file changes, each problem logged once."""
    location, lists_location = policy_location(environ), managed_mcp_location(environ)
    key = (_stat_key(location.path), _stat_key(lists_location.path))
    with _lock:
        found = _read.get(key)
        if found is None:
            found = _read[key] = with_managed_mcp(load_policy(location), load_managed_mcp(lists_location))
        for message in (found.problem, location.ignored, lists_location.ignored):
            if message is not None and message not in _reported:
                _reported.add(message)
                log.warning("organisation's policy: %s", message)
    return found

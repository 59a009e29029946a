"""The ways one registry entry can be installed here: each package and each remote, and whether it can.

The gallery lists them (unavailable ones greyed with the reason), `mcp-desk install` takes the
first that works or the one named by `--package`. A `.mcpb` package is downloaded and checked
against its `fileSha256` before anything else is read from it.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Final

from desktop_app.core.launch_env import Which
from desktop_app.core.publisher_document import Transport
from desktop_app.core.registry.bundle import MAX_BUNDLE_BYTES, Bundle, read_bundle, verify_sha256
from desktop_app.core.registry.client import RegistryClient, RegistryError
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.fields import Field, package_fields, remote_fields
from desktop_app.core.registry.manifest import BundleError
from desktop_app.core.registry.model import Package, ServerEntry
from desktop_app.core.registry.plan import runner_for

KIND_LABELS: Final = {"npm": "npm", "pypi": "PyPI", "oci": "Docker image", "mcpb": "MCP bundle", "nuget": "NuGet"}


@dataclass(frozen=True)
class Choice:
    """One way to install: a package (run locally) or a remote (connect by URL)."""

    kind: str
    """npm, pypi, oci, mcpb, … or "remote"."""
    label: str
    package: Package | None = None
    remote: Transport | None = None
    problem: str | None = None
    """Why it cannot be used here (a missing runtime, an unsupported type); None when it can."""

    @property
    def available(self) -> bool:
        return self.problem is None

    def fields(self) -> list[Field]:
        """The questions to ask; a bundle's come from its manifest, once it is downloaded."""
        if self.package is not None:
            return [] if self.kind == "mcpb" else package_fields(self.package)
        assert self.remote is not None
        return remote_fields(self.remote)


def _package_problem(package: Package, which: Which) -> str | None:
    if package.registry_type.lower() == "mcpb":
        return None if package.file_sha256 else "the registry gives no checksum (fileSha256) for this bundle"
    if package.transport.type != "stdio":
        return "it serves HTTP itself; MCP Desk starts packages that speak stdio"
    try:
        runner_for(package, which)
    except PlanError as exc:
        return str(exc)
    return None


def choices(entry: ServerEntry, *, which: Which = shutil.which) -> list[Choice]:
    """Packages in the publisher's order, then remotes."""
    found: list[Choice] = []
    for package in entry.server.packages:
        kind = package.registry_type.lower()
        version = f" {package.version}" if package.version else ""
        label = f"{KIND_LABELS.get(kind, package.registry_type)}: {package.identifier}{version}"
        if kind == "mcpb":
            label = f"{KIND_LABELS['mcpb']}: {package.identifier.rpartition('/')[2]}{version}"
        found.append(Choice(kind, label, package=package, problem=_package_problem(package, which)))
    for remote in entry.server.remotes:
        transport = "SSE" if remote.type == "sse" else "HTTP"
        found.append(Choice("remote", f"Remote ({transport}): {remote.url}", remote=remote))
    return found


def pick(options: list[Choice], kind: str | None = None) -> Choice:
    """The first usable choice (of `kind`, when given); `PlanError` explains when there is none."""
    if not options:
        raise PlanError("the registry lists no package or remote to install for this server")
    wanted = [c for c in options if kind is None or c.kind == kind.lower()]
    if not wanted:
        offered = ", ".join(sorted({c.kind for c in options}))
        raise PlanError(f"this server offers no {kind} install (it offers: {offered})")
    usable = [c for c in wanted if c.available]
    if not usable:
        raise PlanError(f"cannot install it here: {wanted[0].problem}")
    return usable[0]


async def download_bundle(client: RegistryClient, package: Package) -> Bundle:
    """Fetch a registry `.mcpb`, refuse it unless its SHA-256 matches, then read its manifest."""
    if not package.file_sha256:
        raise BundleError("the registry gives no checksum (fileSha256) for this bundle; refusing to install it")
    try:
        data = await client.download(package.identifier, limit=MAX_BUNDLE_BYTES)
    except RegistryError as exc:
        raise BundleError(str(exc)) from None
    verify_sha256(data, package.file_sha256)
    return read_bundle(data)

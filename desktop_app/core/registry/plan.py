"""From a registry entry and the user's answers to the exact `servers.json` entry an install writes.

npm runs as `npx -y -- pkg@version`, PyPI as `uvx -- pkg==version` (or `pipx run` where uv is
absent), OCI as `docker run -i --rm -- image`, each runner by the absolute path the app's PATH finds
(`launch_env`); remotes become URL entries with their headers. The user's answers become values
(`answer_values`): secrets become `${secret:NAME}` placeholders and travel separately to the secret
store; everything the publisher or the user wrote is literal (`entry_text`). Names, versions and
runtime options that would run another package are refused (`package_checks`), and so are
environment names that change what runs. Nothing here runs or writes anything: the plan is what the
consent step shows, whole, before anything happens. A remote's host is resolved before it is planned
(`check_remote_address`): a registry on the internet may not point the app at this computer or the
local network.

npm and PyPI packages run sandboxed by default, with the rights `sandbox.defaults` derives from the
folders the user gives them, the hosts their values name and the registry their runner downloads
from; the consent shows them. Container images do not: the sandbox would keep `docker` from its daemon.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Final, Protocol
from urllib.parse import urlsplit

from desktop_app.core.launch_env import Which, launch_names, program_path, refusal
from desktop_app.core.network_guard import InternalAddressError, Resolver, public_addresses, system_resolver
from desktop_app.core.publisher_document import Input, Transport
from desktop_app.core.registry.answer_values import AnswerValues, argv_of, check_answers, key_values
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.fields import Answers, package_fields, remote_fields
from desktop_app.core.registry.model import Package, ServerEntry
from desktop_app.core.registry.package_checks import check_package, check_runtime_options
from desktop_app.core.sandbox.defaults import Rights, is_local
from desktop_app.core.server_config import ServerConfig, TransportKind

NPM_REGISTRY: Final = "https://registry.npmjs.org"
PYPI_REGISTRY: Final = "https://pypi.org"
_HEADER_NAME: Final = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE: Final = re.compile(r"[\x20-\x7e\t]*")
DOCKER_NOTE: Final = (
    "Container images are not sandboxed by MCP Desk (the sandbox would keep docker from its daemon):"
    " Docker confines the container as the options above say."
)


class Staged(Protocol):
    """Files an install puts in place only once the user agreed (an unpacked bundle)."""

    def commit(self) -> None: ...

    def discard(self) -> None: ...


@dataclass(frozen=True)
class InstallPlan:
    """Everything an install will do: the entry to write, the secrets to store, what it came from."""

    config: ServerConfig
    source: str
    """One line: what is installed, e.g. "npm package @scope/pkg 1.2.0"."""
    secrets: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    """Warnings to show with the consent (a deprecated server, …)."""
    replaces: str | None = None
    """The entry this install updates (same name, new command)."""
    staged: Staged | None = None
    sandbox_why: Mapping[str, str] = field(default_factory=dict)
    """Why the entry's sandbox allows each path and host it lists (`sandbox.defaults.Rights.why`)."""


def command_line(config: ServerConfig) -> list[str]:
    """The program and its arguments exactly as the entry starts them (no shell is involved)."""
    return [config.command or "", *config.args]


def entry_name_for(server_name: str, taken: Collection[str]) -> str:
    """`io.github.acme/weather` -> `weather` (or `weather-2`, … when that name is in use)."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", server_name.rpartition("/")[2]).strip("-").lower() or "server"
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}-{counter}", counter + 1
    return name


def _origin(entry: ServerEntry, registry_url: str, package: str) -> dict[str, str]:
    return {"registry": registry_url, "name": entry.server.name, "version": entry.server.version, "package": package}


def _notes(entry: ServerEntry) -> tuple[str, ...]:
    meta = entry.official
    why = f": {meta.status_message}" if meta.status_message else ""
    if meta.status == "deleted":
        raise PlanError(f"the registry marks {entry.server.name} as deleted{why}")
    if meta.status == "deprecated":
        return (f"The registry marks this server as deprecated{why or '.'}",)
    return ()


@dataclass(frozen=True)
class Runner:
    """The program that fetches and starts a package: which one, and its argv before runtime arguments."""

    tool: str
    """npx, uvx, pipx or docker."""
    argv: tuple[str, ...]
    """The program by absolute path, then its own options."""


def runner_for(package: Package, which: Which) -> Runner:
    """The runner for `package`, found with the app's own PATH; refuses a package it could not name safely."""
    check_package(package)
    kind = package.registry_type.lower()
    base = (package.registry_base_url or "").rstrip("/")
    if kind == "npm":
        if (npx := program_path("npx", which)) is None:
            raise PlanError("npx was not found: install Node.js (with npm) to run npm packages")
        return Runner("npx", (npx, "-y", *(["--registry", base] if base and base != NPM_REGISTRY else [])))
    if kind == "pypi":
        index = ["--index-url", f"{base}/simple"] if base and base != PYPI_REGISTRY else []
        if (uvx := program_path("uvx", which)) is not None:
            return Runner("uvx", (uvx, *index))
        if (pipx := program_path("pipx", which)) is not None:
            if package.runtime_arguments:
                raise PlanError("this package passes options meant for uvx: install uv to run it")
            return Runner("pipx", (pipx, "run", *index))
        raise PlanError("neither uv nor pipx was found: install uv (or pipx) to run PyPI packages")
    if kind == "oci":
        if (docker := program_path("docker", which)) is None:
            raise PlanError("docker was not found: install Docker to run container images")
        return Runner("docker", (docker, "run", "-i", "--rm"))
    if kind == "mcpb":
        raise PlanError("bundles are installed with their own steps (download, check, unpack)")
    raise PlanError(f"MCP Desk cannot run {package.registry_type} packages (it runs npm, PyPI, OCI and .mcpb)")


def _spec(package: Package, tool: str) -> list[str]:
    """The package as the runner names it, version pinned, after the `--` that ends the runner's options."""
    name, version = package.identifier, package.version
    if tool == "npx":
        return ["--", f"{name}@{version}" if version else name]
    if tool == "uvx":
        return ["--", f"{name}=={version}" if version else name]
    if tool == "pipx":
        return ["--spec", f"{name}=={version}" if version else name, name]
    # OCI: the identifier carries the tag (or digest) since 2025-10-11; older entries give `version`.
    tail = name.rpartition("/")[2]
    return ["--", name if ":" in tail or "@" in tail or not version else f"{name}:{version}"]


def plan_package(
    entry: ServerEntry,
    package: Package,
    answers: Answers,
    *,
    entry_name: str,
    registry_url: str,
    stored: Collection[str] = (),
    replaces: str | None = None,
    which: Which = shutil.which,
) -> InstallPlan:
    """The stdio entry that runs `package` with the user's answers."""
    check_answers(package_fields(package), answers)
    notes = _notes(entry)
    if package.transport.type != "stdio":
        raise PlanError("this package serves HTTP itself; MCP Desk starts packages that speak stdio")
    runner = runner_for(package, which)
    changing = launch_names(item.name for item in package.environment_variables)
    if changing:
        raise PlanError(refusal(changing, "server's entry", "registry entries"))
    values = AnswerValues(entry_name, answers, stored)
    runtime_args = argv_of(package.runtime_arguments, values)
    check_runtime_options(runner.tool, runtime_args)
    package_args = argv_of(package.package_arguments, values)
    env = key_values(package.environment_variables, values)
    passed_env = [flag for name in env for flag in ("-e", name)] if runner.tool == "docker" else []
    argv = [*runner.argv, *runtime_args, *passed_env, *_spec(package, runner.tool), *package_args]
    version = f" {package.version}" if package.version else ""
    config = ServerConfig(
        name=entry_name,
        transport=TransportKind.STDIO,
        command=values.slots.entry(argv[0]),
        args=tuple(values.slots.entry(arg) for arg in argv[1:]),
        env={name: values.slots.entry(value) for name, value in env.items()},
        origin=_origin(entry, registry_url, package.registry_type.lower()),
    )
    source = f"{package.registry_type} package {package.identifier}{version}"
    if runner.tool == "docker":
        return InstallPlan(config, source, values.secrets, (*notes, DOCKER_NOTE), replaces)
    rights = _rights(runner.tool, package, values, [*runtime_args, *package_args], env, registry_url)
    config = replace(config, sandbox_enabled=True, sandbox=rights.settings())
    return InstallPlan(config, source, values.secrets, (*notes, *rights.withheld), replaces, sandbox_why=rights.why())


def _rights(
    tool: str, package: Package, values: AnswerValues, args: list[str], env: Mapping[str, str], registry_url: str
) -> Rights:
    """The sandbox of a package run by `tool`: the folders the user gave it, the hosts its values name (never
    a secret's), and the registry the runner downloads it from (inside only for a registry inside)."""
    rights = Rights()
    for path, why in values.folders.items():
        rights.folder(path, why)
    for arg in args:
        if not values.slots.holds_secret(arg):
            rights.hosts_in(arg, "its arguments name it")
    for name, value in env.items():
        if not values.slots.holds_secret(value):
            rights.hosts_in(value, f"{name} names it")
    base = (package.registry_base_url or "").rstrip("/")
    inside = is_local(urlsplit(registry_url).hostname or "")
    rights.runner(tool, base if base and base not in (NPM_REGISTRY, PYPI_REGISTRY) else None, local_ok=inside)
    return rights


def _check_headers(headers: Mapping[str, str]) -> None:
    """HTTP carries header names as tokens and values as visible ASCII: anything else (a line break that
    would add a header of its own, an escape sequence, look-alike letters) is refused, not sent."""
    for name, value in headers.items():
        if _HEADER_NAME.fullmatch(name) is None:
            raise PlanError(f"the header name {name!r} is not a valid HTTP header name")
        if _HEADER_VALUE.fullmatch(value) is None:
            raise PlanError(f"the header {name}'s value {value!r} has characters HTTP headers cannot carry")


def plan_remote(
    entry: ServerEntry,
    remote: Transport,
    answers: Answers,
    *,
    entry_name: str,
    registry_url: str,
    stored: Collection[str] = (),
    replaces: str | None = None,
) -> InstallPlan:
    """The URL entry for a registry entry's hosted server; sign-in, if it asks for it, happens on connect."""
    return plan_url(
        remote,
        answers,
        entry_name=entry_name,
        origin=_origin(entry, registry_url, "remote"),
        notes=_notes(entry),
        stored=stored,
        replaces=replaces,
    )


async def check_remote_address(url: str, registry_url: str, resolve: Resolver = system_resolver) -> None:
    """`PlanError` when a registry on the internet lists a remote whose host resolves into this computer
    or the local network: any publisher could otherwise make the app call services only this machine
    can reach. A registry that is itself on this computer or the local network (an organisation's
    sub-registry) may list local servers. A name that does not resolve now is not refused here."""
    try:
        await _public(registry_url, resolve)
    except InternalAddressError:
        return  # the registry is inside: so may its servers be
    except (OSError, ValueError):
        pass
    try:
        await _public(url, resolve)
    except InternalAddressError as exc:
        registry = urlsplit(registry_url).netloc
        raise PlanError(
            f"the server's address is refused: the registry {registry} may not point at this computer or your network"
            f" ({exc})"
        ) from None
    except (OSError, ValueError):
        return


async def _public(url: str, resolve: Resolver) -> None:
    """`InternalAddressError` when `url`'s host resolves into this computer or the local network."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    await public_addresses(parts.hostname or "", port, resolve)


def plan_url(
    remote: Transport,
    answers: Answers,
    *,
    entry_name: str,
    origin: Mapping[str, str],
    notes: tuple[str, ...] = (),
    source: str | None = None,
    stored: Collection[str] = (),
    replaces: str | None = None,
) -> InstallPlan:
    """The URL entry for a hosted server described by anyone (a registry entry, a Server Card): the URL
    with its variables filled and the headers, all literal but this install's own secrets."""
    check_answers(remote_fields(remote), answers)
    values = AnswerValues(entry_name, answers, stored)
    assert remote.url is not None
    url = values.fixed(Input(value=remote.url, variables=remote.variables))
    if not url.startswith(("https://", "http://")) or "{" in url:
        raise PlanError(f"the server's URL is incomplete: {url}")
    headers = {name: values.slots.entry(value) for name, value in key_values(remote.headers, values).items()}
    _check_headers(headers)
    config = ServerConfig(
        name=entry_name,
        transport=TransportKind.SSE if remote.type == "sse" else TransportKind.HTTP,
        url=values.slots.entry(url),
        headers=headers,
        origin=dict(origin),
    )
    return InstallPlan(config, source or f"remote server at {config.url}", values.secrets, notes, replaces)

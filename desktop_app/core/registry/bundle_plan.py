"""What an `.mcpb` bundle runs: the `servers.json` entry made from its manifest and the user's answers.

The manifest is the publisher's text. Only the variables its format defines are filled in
(`${__dirname}`, the `${HOME}`-style folders, `${pathSeparator}`, `${user_config.*}` from the user's
own answers); any other `${…}` (a `${secret:…}`, an `${ENV_VAR}`) reaches the server as the text it
is, and the consent says so. The command is stored as the absolute path the app's PATH finds, and
an environment that would change what runs (`launch_env`) is refused. The files are written only
when the plan is committed (`bundle.UnpackedBundle`).

A bundle runs sandboxed by default (`sandbox.defaults`): it may write to the folders chosen for the
`directory` settings its command uses, reach the hosts its command line names, and a `uv` bundle may
keep its environment in its own folder and download its packages from PyPI.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Collection, Mapping
from pathlib import Path, PurePosixPath
from typing import Final

from desktop_app.core.launch_env import Which, launch_names, program_path, refusal
from desktop_app.core.registry.answer_values import secret_name
from desktop_app.core.registry.bundle import Bundle, UnpackedBundle, bundles_dir, target_dir
from desktop_app.core.registry.entry_text import SecretSlots
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.fields import Answers
from desktop_app.core.registry.manifest import BundleError, Manifest, McpConfig, UserOption, user_dirs
from desktop_app.core.registry.plan import InstallPlan
from desktop_app.core.sandbox.defaults import Rights
from desktop_app.core.server_config import ServerConfig, TransportKind

_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_USER_CONFIG = re.compile(r"\$\{user_config\.([^}]+)\}")
_SYSTEM_VAR = re.compile(r"\$\{(__dirname|HOME|DESKTOP|DOCUMENTS|DOWNLOADS|pathSeparator|/)\}")
_RUNTIME_HELP: Final = {
    "node": "install Node.js",
    "python": "install Python 3",
    "python3": "install Python 3",
    "uv": "install uv",
}


def _system_dirs(directory: Path) -> dict[str, str]:
    return {"__dirname": str(directory), **user_dirs(), "pathSeparator": os.sep, "/": os.sep}


def _default_strings(default: object) -> list[str]:
    if isinstance(default, list):
        return [str(v) for v in default]
    if isinstance(default, bool):
        return ["true" if default else "false"]
    return [str(default)]


class _Options:
    """The user's `user_config` answers as raw values (sensitive ones as secret slots), and the
    manifest's text with the variables its format defines filled in."""

    def __init__(
        self, manifest: Manifest, answers: Answers, entry: str, stored: Collection[str], dirs: dict[str, str]
    ) -> None:
        self.secrets: dict[str, str] = {}
        self.values: dict[str, list[str]] = {}
        self.slots = SecretSlots()
        self.unexpanded: dict[str, None] = {}
        """`${…}` the manifest wrote that its format does not define, in order: passed on as text."""
        self.used: set[str] = set()
        """The `user_config` keys the command line or environment names."""
        self.defaulted: set[str] = set()
        """The `user_config` keys left at the manifest's default."""
        for option in manifest.user_config:
            self.values[option.key] = self._resolve(option, answers.get(option.key, ()), entry, stored, dirs)

    def _resolve(
        self, option: UserOption, given: tuple[str, ...], entry: str, stored: Collection[str], dirs: dict[str, str]
    ) -> list[str]:
        values = [v for v in given if v.strip()]
        if not values and option.default is not None:
            values = [_SYSTEM_VAR.sub(lambda m: dirs[m.group(1)], v) for v in _default_strings(option.default)]
            self.defaulted.add(option.key)
        name = secret_name(entry, option.key)
        if not values:
            if option.sensitive and name in stored:
                return [self.slots.slot(name)]
            if option.required:
                raise PlanError(f"{option.title} is required")
            return []
        values = [self._checked(option, v) for v in (values if option.multiple else values[:1])]
        if option.sensitive:
            self.secrets[name] = values[0]
            return [self.slots.slot(name)]
        return values

    @staticmethod
    def _checked(option: UserOption, value: str) -> str:
        if option.type == "boolean":
            if value.strip().lower() not in ("true", "false"):
                raise PlanError(f"{option.title} must be true or false")
            return value.strip().lower()
        if option.type == "number":
            try:
                number = float(value)
            except ValueError:
                raise PlanError(f"{option.title} must be a number") from None
            if (option.minimum is not None and number < option.minimum) or (
                option.maximum is not None and number > option.maximum
            ):
                raise PlanError(f"{option.title} must be between {option.minimum:g} and {option.maximum:g}")
        return value

    def fill(self, text: str, dirs: dict[str, str]) -> str:
        """The manifest's `text` with its format's variables filled; any other `${…}` kept as text."""

        def variable(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in dirs:
                return dirs[name]
            if name.startswith("user_config."):
                self.used.add(name.removeprefix("user_config."))
                return " ".join(self.values.get(name.removeprefix("user_config."), []))
            self.unexpanded[match.group(0)] = None
            return match.group(0)

        return _VARIABLE.sub(variable, text)

    def expand_arg(self, arg: str, dirs: dict[str, str]) -> list[str]:
        """`${user_config.dirs}` alone expands to one argument per value (none when unset)."""
        whole = _USER_CONFIG.fullmatch(arg)
        if whole is not None:
            self.used.add(whole.group(1))
            return list(self.values.get(whole.group(1), []))
        return [self.fill(arg, dirs)]


def _launch(manifest: Manifest) -> McpConfig:
    """The manifest's `mcp_config`, or the default way to start its type of server."""
    if manifest.mcp_config is not None:
        return manifest.mcp_config
    entry = "${__dirname}/" + manifest.entry_point
    if not manifest.entry_point:
        raise BundleError("manifest.json: server.entry_point is missing")
    if manifest.server_type == "node":
        return McpConfig("node", (entry,))
    if manifest.server_type == "python":
        return McpConfig("python", (entry,))
    if manifest.server_type == "uv":
        return McpConfig("uv", ("run", "--directory", "${__dirname}", manifest.entry_point))
    return McpConfig(entry)


def _command(command: str, bundle: Bundle, directory: Path, which: Which) -> tuple[str, str | None]:
    """The program to start by absolute path, and the bundle member to mark executable (binaries inside)."""
    inside = Path(command)
    if inside.is_absolute():
        try:
            member = inside.relative_to(directory).as_posix()
        except ValueError:
            member = None
    else:
        member = PurePosixPath(command.replace("\\", "/")).as_posix() if "/" in command or "\\" in command else None
        if member is None and command in bundle.members:
            member = command
    if member is not None:
        if sys.platform == "win32" and not member.endswith(".exe") and member + ".exe" in bundle.members:
            member += ".exe"
        if member not in bundle.members:
            raise BundleError(f"the bundle's command {command!r} is not in the bundle")
        return str(directory / member), member
    found = program_path(command, which) or (program_path("python3", which) if command == "python" else None)
    if found is None:
        raise PlanError(f"{command} was not found: {_RUNTIME_HELP.get(command, 'install it')} to run this bundle")
    return found, None


def plan_bundle(
    bundle: Bundle,
    answers: Answers,
    *,
    entry_name: str,
    root: Path | None = None,
    stored: Collection[str] = (),
    replaces: str | None = None,
    origin: Mapping[str, str] | None = None,
    which: Which = shutil.which,
) -> InstallPlan:
    """The entry that runs the unpacked bundle; the files are written only when the plan is committed."""
    manifest = bundle.manifest
    known = {o.key for o in manifest.user_config}
    unknown = sorted(set(answers) - known)
    if unknown:
        raise PlanError(f"unknown setting {unknown[0]} (this bundle takes: {', '.join(sorted(known)) or 'nothing'})")
    directory = target_dir(root or bundles_dir(), entry_name, manifest.version)
    dirs = _system_dirs(directory)
    options = _Options(manifest, answers, entry_name, stored, dirs)
    entry_point = str(PurePosixPath(manifest.entry_point))
    if manifest.server_type in ("node", "python", "uv") and entry_point not in bundle.members:
        raise BundleError(f"the bundle's entry point {manifest.entry_point!r} is not in the bundle")
    launch = _launch(manifest)
    changing = launch_names(launch.env or {})
    if changing:
        raise BundleError(refusal(changing, "bundle", "bundles"))
    raw_command = options.fill(launch.command, dirs)
    if options.slots.holds_secret(raw_command):
        raise BundleError("the bundle's command names a secret setting; only arguments and environment may")
    command, executable = _command(raw_command, bundle, directory, which)
    args = [value for arg in launch.args for value in options.expand_arg(arg, dirs)]
    env = {key: options.fill(value, dirs) for key, value in (launch.env or {}).items()}
    notes: tuple[str, ...] = ()
    if options.unexpanded:
        named = ", ".join(options.unexpanded)
        notes = (
            f"The bundle's manifest names {named}, which bundles cannot read: the server gets that text as written.",
        )
    rights = _rights(manifest, options, directory, Path(command).name if executable is None else None, args, env)
    config = ServerConfig(
        name=entry_name,
        transport=TransportKind.STDIO,
        command=options.slots.entry(command),
        args=tuple(options.slots.entry(arg) for arg in args),
        env={key: options.slots.entry(value) for key, value in env.items()},
        sandbox_enabled=True,
        sandbox=rights.settings(),
        origin={
            **(origin or {}),
            "package": "mcpb",
            "bundle": str(directory),
            "version": (origin or {}).get("version", manifest.version),
            "sha256": bundle.sha256,
        },
    )
    staged = UnpackedBundle(bundle, directory, executable if manifest.server_type == "binary" else None)
    source = f"bundle {manifest.name} {manifest.version}"
    return InstallPlan(config, source, options.secrets, notes, replaces, staged, sandbox_why=rights.why())


def _rights(
    manifest: Manifest, options: _Options, directory: Path, runner: str | None, args: list[str], env: dict[str, str]
) -> Rights:
    """The bundle's sandbox: the folders chosen for the `directory` settings its command uses, the hosts its
    command line names (never a secret's), and for a runner found on PATH (`uv`, `npx`) its registry."""
    rights = Rights()
    for option in manifest.user_config:
        if option.type == "directory" and option.key in options.used and not option.sensitive:
            why = (
                f"the default of {option.title}"
                if option.key in options.defaulted
                else f"you chose it as {option.title}"
            )
            for path in options.values.get(option.key, []):
                rights.folder(path, why)
    if manifest.server_type == "uv":
        rights.folder(str(directory), "uv keeps the bundle's environment in its own folder")
    for arg in args:
        if not options.slots.holds_secret(arg):
            rights.hosts_in(arg, "its arguments name it")
    for name, value in env.items():
        if not options.slots.holds_secret(value):
            rights.hosts_in(value, f"{name} names it")
    if runner is not None:
        rights.runner(runner)
    return rights

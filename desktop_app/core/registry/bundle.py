"""`.mcpb` bundles: check the file, show what it runs, unpack it only once the user agreed.

A bundle is a zip with `manifest.json` at its root. Every member is checked before anything is
written (no absolute paths, no `..`, no links, bounded size), a registry download must match its
`fileSha256`, and the files land in a temporary folder renamed into place at commit, so a refused
or failed install leaves nothing behind. Uninstalling removes the folder with the entry.

The manifest is the publisher's text. Only the variables its format defines are filled in
(`${__dirname}`, the `${HOME}`-style folders, `${pathSeparator}`, `${user_config.*}` from the user's
own answers); any other `${…}` (a `${secret:…}`, an `${ENV_VAR}`) reaches the server as the text it
is, and the consent says so. The command is stored as the absolute path the app's PATH finds, and
an environment that would change what runs (`launch_env`) is refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import zipfile
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

from desktop_app.core.launch_env import Which, launch_names, program_path, refusal
from desktop_app.core.paths import data_dir
from desktop_app.core.registry.entry_text import SecretSlots
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.fields import Answers
from desktop_app.core.registry.manifest import (
    BundleError,
    Manifest,
    McpConfig,
    UserOption,
    parse_manifest,
    user_dirs,
)
from desktop_app.core.registry.plan import InstallPlan, secret_name
from desktop_app.core.server_config import ServerConfig, TransportKind

MAX_MEMBERS: Final = 20_000
MAX_UNPACKED_BYTES: Final = 1024 * 1024 * 1024
MAX_BUNDLE_BYTES: Final = 256 * 1024 * 1024
BUNDLES_DIRNAME: Final = "bundles"
_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_USER_CONFIG = re.compile(r"\$\{user_config\.([^}]+)\}")
_SYSTEM_VAR = re.compile(r"\$\{(__dirname|HOME|DESKTOP|DOCUMENTS|DOWNLOADS|pathSeparator|/)\}")
_RUNTIME_HELP: Final = {
    "node": "install Node.js",
    "python": "install Python 3",
    "python3": "install Python 3",
    "uv": "install uv",
}


def bundles_dir() -> Path:
    return data_dir() / BUNDLES_DIRNAME


@dataclass(frozen=True)
class Bundle:
    """A checked bundle held in memory: its manifest, member names and bytes."""

    manifest: Manifest
    members: frozenset[str]
    data: bytes
    sha256: str


def verify_sha256(data: bytes, expected: str) -> None:
    """Refuse a download whose SHA-256 differs from the registry's `fileSha256`."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected.lower():
        raise BundleError(
            f"the downloaded bundle does not match the registry's checksum (expected {expected}, got {actual});"
            " nothing was installed"
        )


def _safe_name(info: zipfile.ZipInfo) -> str:
    name = info.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or ".." in path.parts:
        raise BundleError(f"the bundle is unsafe: {info.filename!r} would be written outside its folder")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise BundleError(f"the bundle is unsafe: {info.filename!r} is a link")
    return str(path)


def read_bundle(data: bytes, *, platform: str = sys.platform) -> Bundle:
    """Open and check a bundle without writing anything; raises `BundleError` naming the problem."""
    if len(data) > MAX_BUNDLE_BYTES:
        raise BundleError("the bundle is too large to install")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise BundleError("this is not an .mcpb bundle (it is not a zip file)") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS or sum(i.file_size for i in infos) > MAX_UNPACKED_BYTES:
            raise BundleError("the bundle unpacks to too many files or bytes")
        members = frozenset(_safe_name(info) for info in infos if not info.is_dir())
        if "manifest.json" not in members:
            raise BundleError("the bundle has no manifest.json at its root")
        try:
            document = json.loads(archive.read("manifest.json"))
        except (ValueError, zipfile.BadZipFile) as exc:
            raise BundleError(f"the bundle's manifest.json is not valid JSON ({exc})") from None
    return Bundle(parse_manifest(document, platform=platform), members, data, hashlib.sha256(data).hexdigest())


def bundle_icon(bundle: Bundle, limit: int = 512 * 1024) -> bytes | None:
    """The manifest's `icon` file from inside the bundle (URLs are not fetched), if small enough."""
    name = bundle.manifest.icon
    if not name or "://" in name:
        return None
    member = str(PurePosixPath(name.replace("\\", "/")))
    if member not in bundle.members:
        return None
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        for info in archive.infolist():
            if _safe_name(info) == member:
                return archive.read(info) if info.file_size <= limit else None
    return None


def open_bundle_file(path: Path) -> Bundle:
    """Read and check a `.mcpb` file from disk (blocking: run it off the event loop in the window)."""
    try:
        if path.stat().st_size > MAX_BUNDLE_BYTES:
            raise BundleError("the bundle is too large to install")
        data = path.read_bytes()
    except OSError as exc:
        raise BundleError(f"cannot read {path}: {exc.strerror or exc}") from None
    return read_bundle(data)


def target_dir(root: Path, entry_name: str, version: str) -> Path:
    """A fresh folder name for this install (versions side by side until the old one is removed)."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{entry_name}-{version}").strip("-") or "bundle"
    candidate, counter = root / stem, 2
    while candidate.exists():
        candidate, counter = root / f"{stem}-{counter}", counter + 1
    return candidate


class UnpackedBundle:
    """The bundle's files, written at `commit()` (temp folder, then one rename) and removable again."""

    def __init__(self, bundle: Bundle, target: Path, executable: str | None = None) -> None:
        self.bundle = bundle
        self.target = target
        self._executable = executable

    def commit(self) -> None:
        self.target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=self.target.parent))
        try:
            with zipfile.ZipFile(io.BytesIO(self.bundle.data)) as archive:
                for info in archive.infolist():
                    destination = staging / _safe_name(info)
                    if info.is_dir():
                        destination.mkdir(parents=True, exist_ok=True)
                        continue
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    with archive.open(info) as source, open(destination, "wb") as sink:
                        shutil.copyfileobj(source, sink)
                    mode = (info.external_attr >> 16) & 0o777
                    if mode & 0o111:
                        destination.chmod(mode | 0o600)
            if self._executable is not None:
                binary = staging / self._executable
                binary.chmod(binary.stat().st_mode | 0o755)
            os.rename(staging, self.target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def discard(self) -> None:
        shutil.rmtree(self.target, ignore_errors=True)


def remove_bundle_files(config: ServerConfig, root: Path | None = None) -> bool:
    """Delete an installed bundle's folder (only ever one inside the bundles folder)."""
    folder = config.origin.get("bundle")
    if not folder:
        return False
    root = (root or bundles_dir()).resolve()
    path = Path(folder).resolve()
    if path == root or root not in path.parents:
        return False
    shutil.rmtree(path, ignore_errors=True)
    return not path.exists()


# --- the entry ---------------------------------------------------------------------------------


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
        for option in manifest.user_config:
            self.values[option.key] = self._resolve(option, answers.get(option.key, ()), entry, stored, dirs)

    def _resolve(
        self, option: UserOption, given: tuple[str, ...], entry: str, stored: Collection[str], dirs: dict[str, str]
    ) -> list[str]:
        values = [v for v in given if v.strip()]
        if not values and option.default is not None:
            values = [_SYSTEM_VAR.sub(lambda m: dirs[m.group(1)], v) for v in _default_strings(option.default)]
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
                return " ".join(self.values.get(name.removeprefix("user_config."), []))
            self.unexpanded[match.group(0)] = None
            return match.group(0)

        return _VARIABLE.sub(variable, text)

    def expand_arg(self, arg: str, dirs: dict[str, str]) -> list[str]:
        """`${user_config.dirs}` alone expands to one argument per value (none when unset)."""
        whole = _USER_CONFIG.fullmatch(arg)
        if whole is not None:
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
    config = ServerConfig(
        name=entry_name,
        transport=TransportKind.STDIO,
        command=options.slots.entry(command),
        args=tuple(options.slots.entry(arg) for arg in args),
        env={key: options.slots.entry(value) for key, value in env.items()},
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
    return InstallPlan(config, source, options.secrets, notes, replaces, staged)

"""`.mcpb` bundles: check the file, unpack it only once the user agreed, remove it with its entry.

A bundle is a zip with `manifest.json` at its root. Every member is checked before anything is
written (no absolute paths, no `..`, no links, bounded size), a registry download must match its
`fileSha256`, and the files land in a temporary folder renamed into place at commit, so a refused
or failed install leaves nothing behind. Uninstalling removes the folder with the entry. What a
bundle runs, and how, is its plan (`bundle_plan`).

Bundles are unpacked into a folder of their own beside the app's data folder, not inside it: the
sandbox hides the app's folders (secrets, records) from every server, and a sandboxed server must
still read its own files.
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
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

import platformdirs

from desktop_app.core.paths import APP_NAME, data_dir
from desktop_app.core.registry.manifest import BundleError, Manifest, parse_manifest
from desktop_app.core.server_config import ServerConfig

MAX_MEMBERS: Final = 20_000
MAX_UNPACKED_BYTES: Final = 1024 * 1024 * 1024
MAX_BUNDLE_BYTES: Final = 256 * 1024 * 1024
BUNDLES_DIRNAME: Final = "bundles"
"""The folder in the app's data folder where bundles were unpacked before they got their own (still removed)."""


def bundles_dir() -> Path:
    """Where bundles are unpacked: beside the app's data folder (`mcp-desk-bundles`), which sandboxes hide."""
    return Path(platformdirs.user_data_dir(f"{APP_NAME}-{BUNDLES_DIRNAME}", appauthor=False))


def _bundle_roots() -> tuple[Path, ...]:
    """Every folder the app has unpacked bundles into: today's, and the one inside the data folder."""
    return (bundles_dir(), data_dir() / BUNDLES_DIRNAME)


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
    """Delete an installed bundle's folder: only ever one inside `root`, or else inside a bundles folder."""
    folder = config.origin.get("bundle")
    if not folder:
        return False
    path = Path(folder).resolve()
    for place in (root,) if root is not None else _bundle_roots():
        resolved = place.resolve()
        if path != resolved and resolved in path.parents:
            shutil.rmtree(path, ignore_errors=True)
            return not path.exists()
    return False

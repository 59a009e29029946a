"""A planted home for the hostile server to attack: keys, the app's own files, a denied folder, notes."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop_app.core import paths
from desktop_app.core.sandbox.landlock import abi_version
from desktop_app.core.sandbox.probe import LANDLOCK, SandboxSupport
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.server_config import ServerConfig, TransportKind

PROBE_SCRIPT = Path(__file__).resolve().parents[2] / "servers" / "sandbox_probe_server.py"
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- planted"
APP_SECRET = "the app's planted secret"
DIARY = "planted diary"
README = "an ordinary file anyone may read"


@dataclass(frozen=True)
class Home:
    root: Path
    key: Path
    app_secret: Path
    diary: Path
    readme: Path
    notes: Path
    host_tmp_file: Path

    def config(self, *, sandboxed: bool, name: str = "probe", **settings: tuple[str, ...]) -> ServerConfig:
        fields = {"allow_write": (str(self.notes),), "deny_read": (str(self.diary.parent),), **settings}
        return ServerConfig(
            name=name,
            transport=TransportKind.STDIO,
            command=sys.executable,
            args=(str(PROBE_SCRIPT),),
            sandbox_enabled=sandboxed,
            sandbox=SandboxSettings(**fields),
        )


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Home]:
    """The user's home, outside /tmp (a sandboxed server has its own /tmp, which would hide it whole)."""
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="sandbox-home-") as folder:
        root = Path(folder)
        monkeypatch.setenv("HOME", str(root))
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
            monkeypatch.delenv(name, raising=False)
        key = root / ".ssh" / "id_rsa"
        app_secret = paths.data_dir() / "secrets.json"
        diary = root / "private" / "diary.txt"
        for path, text in ((key, KEY), (app_secret, APP_SECRET), (diary, DIARY), (root / "readme.txt", README)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        (root / "notes").mkdir()
        host_tmp_file = tmp_path / "host-tmp.txt"
        host_tmp_file.write_text("planted in the host's /tmp")
        yield Home(root, key, app_secret, diary, root / "readme.txt", root / "notes", host_tmp_file)


def landlock_abi() -> int:
    """This kernel's Landlock ABI, or the test is skipped naming what the kernel lacks."""
    try:
        return abi_version()
    except OSError as exc:
        pytest.skip(f"Landlock cannot run on this kernel: {exc.strerror or exc}")


def landlock_tier() -> SandboxSupport:
    """The Landlock tier, chosen even where bubblewrap works (skipped where the kernel has no Landlock)."""
    return SandboxSupport(LANDLOCK, abi=landlock_abi())

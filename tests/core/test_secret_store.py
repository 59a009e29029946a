"""The secret store: OS keyring when there is one, else an encrypted or a labelled plaintext file."""

from __future__ import annotations

import base64
import getpass
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import keyring.errors
import pytest
from keyring.backend import KeyringBackend
from keyring.backends.chainer import ChainerBackend
from keyring.backends.fail import Keyring as FailKeyring
from keyring.compat import properties
from keyrings.alt.file import EncryptedKeyring, PlaintextKeyring

from desktop_app.core.secret_store import (
    ENCRYPTED_FILENAME,
    PLAINTEXT_FILENAME,
    PasswordRequiredError,
    SecretStoreError,
    WrongPasswordError,
    encryption_advice,
    find_os_keyring,
    open_secret_store,
)

SECRET = "sk-live-0123456789abcdef"
_test_priority: float | None = None


class InMemoryKeyring(KeyringBackend):
    """An OS-keyring stand-in. Its priority raises unless a test sets one, so keyring never picks it."""

    @properties.classproperty
    def priority(cls) -> float:
        if _test_priority is None:
            raise RuntimeError("test-only backend")
        return _test_priority

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}
        self.locked = False

    def get_password(self, service: str, username: str) -> str | None:
        if self.locked:
            raise keyring.errors.KeyringLocked("locked")
        return self.data.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.locked:
            raise keyring.errors.KeyringLocked("locked")
        self.data[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.data.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


@pytest.fixture(autouse=True)
def _no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to read a password from a terminal fails the test instead of hanging it."""

    def refuse(*_args: object, **_kwargs: object) -> str:
        raise AssertionError("getpass called: the GUI would hang")

    monkeypatch.setattr(getpass, "getpass", refuse)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_os_keyring_is_used_when_available(tmp_path: Path) -> None:
    ring = InMemoryKeyring()
    store = open_secret_store(tmp_path, password="ignored", candidates=[ring])
    assert store.backend.kind == "os-keyring" and store.backend.encrypted
    assert store.backend.label == "System keyring (test_secret_store)"
    store.set("GITHUB_TOKEN", SECRET)
    store.set("API_KEY", "other-value")
    assert store.get("GITHUB_TOKEN") == SECRET
    assert ring.data[("mcp-desk", "GITHUB_TOKEN")] == SECRET
    assert store.names() == ["API_KEY", "GITHUB_TOKEN"]
    store.delete("GITHUB_TOKEN")
    store.delete("GITHUB_TOKEN")  # deleting twice is fine
    assert store.get("GITHUB_TOKEN") is None
    assert store.names() == ["API_KEY"]
    assert list(tmp_path.iterdir()) == []  # no files when the OS keyring holds the secrets


def test_index_holds_names_not_values(tmp_path: Path) -> None:
    ring = InMemoryKeyring()
    store = open_secret_store(tmp_path, candidates=[ring])
    store.set("TOKEN", SECRET)
    index = [v for (service, _), v in ring.data.items() if service != "mcp-desk"]
    assert index == ['["TOKEN"]']


def test_test_backend_is_never_auto_selected() -> None:
    assert InMemoryKeyring.viable is False
    assert not isinstance(find_os_keyring(), InMemoryKeyring)


def test_find_os_keyring_skips_file_fail_and_chainer_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    fallbacks = [PlaintextKeyring(), EncryptedKeyring(), FailKeyring(), ChainerBackend()]
    assert find_os_keyring(fallbacks) is None
    ring = InMemoryKeyring()
    monkeypatch.setattr(f"{__name__}._test_priority", 0.9)
    assert find_os_keyring([*fallbacks, ring]) is None  # below 1: not trusted as an OS keyring
    monkeypatch.setattr(f"{__name__}._test_priority", 1.5)
    assert find_os_keyring([*fallbacks, ring]) is ring


def test_discovered_keyring_is_a_real_os_keyring() -> None:
    ring = find_os_keyring()
    if ring is not None:  # a desktop session; headless machines have none
        assert not type(ring).__module__.startswith(("keyrings.", "keyring.backends.chainer"))
        assert ring.priority >= 1


def test_plaintext_fallback_is_labelled_and_private(tmp_path: Path) -> None:
    store = open_secret_store(tmp_path / "data", candidates=[])
    assert store.backend.kind == "plaintext-file"
    assert not store.backend.encrypted
    assert "NOT encrypted" in store.backend.label and PLAINTEXT_FILENAME in store.backend.label
    store.set("TOKEN", SECRET)
    path = tmp_path / "data" / PLAINTEXT_FILENAME
    assert _mode(path) == 0o600
    assert _mode(tmp_path / "data") == 0o700
    assert open_secret_store(tmp_path / "data", candidates=[]).get("TOKEN") == SECRET


def test_each_store_says_where_secrets_go_and_a_plaintext_one_how_to_encrypt_it(tmp_path: Path) -> None:
    ring = open_secret_store(tmp_path / "ring", candidates=[InMemoryKeyring()]).backend
    locked = open_secret_store(tmp_path / "locked", prefer="encrypted-file", password="pw").backend
    plain = open_secret_store(tmp_path / "plain", candidates=[]).backend
    assert (ring.short, ring.where, ring.path) == ("system keyring", "in the system keyring", None)
    assert (
        locked.where == "in the password-protected secrets file"
        and locked.path == tmp_path / "locked" / ENCRYPTED_FILENAME
    )
    assert plain.short == "plaintext file, not encrypted" and plain.where == "in a plaintext file, not encrypted"
    assert encryption_advice(ring) == encryption_advice(locked) == ""

    linux = encryption_advice(plain, "linux")
    assert f"in a plaintext file ({tmp_path / 'plain' / PLAINTEXT_FILENAME})" in linux
    assert '"Protect secrets with a password…" (File\u00a0→\u00a0Settings)' in linux  # the way that works at once
    assert "GNOME Keyring or KWallet" in linux and "not moved there: enter them again" in linux
    assert "macOS Keychain" in encryption_advice(plain, "darwin") and "GNOME" not in encryption_advice(plain, "darwin")
    assert "Windows Credential Manager" in encryption_advice(plain, "win32")


def test_plaintext_file_permissions_are_tightened(tmp_path: Path) -> None:
    path = tmp_path / PLAINTEXT_FILENAME
    path.write_text("")
    path.chmod(0o644)
    open_secret_store(tmp_path, prefer="plaintext-file", candidates=[])
    assert _mode(path) == 0o600


def test_encrypted_fallback_with_right_password(tmp_path: Path) -> None:
    store = open_secret_store(tmp_path, password="correct horse", candidates=[])
    assert store.backend.kind == "encrypted-file" and store.backend.encrypted
    assert store.backend.label.startswith("Encrypted file (") and ENCRYPTED_FILENAME in store.backend.label
    store.set("TOKEN", SECRET)
    path = tmp_path / ENCRYPTED_FILENAME
    text = path.read_text()
    assert SECRET not in text and base64.b64encode(SECRET.encode()).decode()[:16] not in text
    assert _mode(path) == 0o600
    reopened = open_secret_store(tmp_path, password="correct horse", candidates=[])
    assert reopened.get("TOKEN") == SECRET
    assert reopened.names() == ["TOKEN"]


def test_encrypted_fallback_with_wrong_password(tmp_path: Path) -> None:
    open_secret_store(tmp_path, password="correct horse", candidates=[]).set("TOKEN", SECRET)
    before = (tmp_path / ENCRYPTED_FILENAME).read_bytes()
    with pytest.raises(WrongPasswordError, match="wrong password") as info:
        open_secret_store(tmp_path, password="battery staple", candidates=[])
    assert "correct horse" not in str(info.value) and "battery staple" not in str(info.value)
    assert (tmp_path / ENCRYPTED_FILENAME).read_bytes() == before


def test_existing_encrypted_file_needs_its_password(tmp_path: Path) -> None:
    open_secret_store(tmp_path, password="pw-1234", candidates=[]).set("TOKEN", SECRET)
    with pytest.raises(PasswordRequiredError):
        open_secret_store(tmp_path, candidates=[])  # not silently replaced by a plaintext store
    assert not (tmp_path / PLAINTEXT_FILENAME).exists()
    with pytest.raises(PasswordRequiredError):
        open_secret_store(tmp_path / "fresh", prefer="encrypted-file", candidates=[])
    with pytest.raises(SecretStoreError, match="empty"):
        open_secret_store(tmp_path / "fresh", password="", candidates=[])


def test_prefer_os_keyring_without_one_fails(tmp_path: Path) -> None:
    with pytest.raises(SecretStoreError, match="no system keyring"):
        open_secret_store(tmp_path, prefer="os-keyring", candidates=[])


def test_prefer_file_skips_os_keyring(tmp_path: Path) -> None:
    store = open_secret_store(tmp_path, prefer="plaintext-file", candidates=[InMemoryKeyring()])
    assert store.backend.kind == "plaintext-file"


def test_backend_failures_become_store_errors_without_values(tmp_path: Path) -> None:
    ring = InMemoryKeyring()
    store = open_secret_store(tmp_path, candidates=[ring])
    ring.locked = True
    with pytest.raises(SecretStoreError) as info:
        store.set("TOKEN", SECRET)
    assert "TOKEN" in str(info.value) and "it is locked" in str(info.value)
    assert "Error" not in str(info.value) and "KeyringLocked" not in str(info.value), "words, not a class name"
    assert SECRET not in str(info.value)


def test_invalid_secret_names_are_refused(tmp_path: Path) -> None:
    store = open_secret_store(tmp_path, candidates=[InMemoryKeyring()])
    with pytest.raises(ValueError, match="invalid secret name"):
        store.set("has space", SECRET)
    assert store.names() == []


def test_plaintext_secrets_move_into_an_encrypted_file(tmp_path: Path) -> None:
    from desktop_app.core.secret_store import encrypt_plaintext_store

    plain = open_secret_store(tmp_path, prefer="plaintext-file")
    plain.set("GITHUB_TOKEN", SECRET)
    plain.set("OTHER", "value-two")
    encrypted = encrypt_plaintext_store(plain, tmp_path, "correct horse")
    assert encrypted.backend.kind == "encrypted-file" and encrypted.backend.encrypted
    assert not (tmp_path / PLAINTEXT_FILENAME).exists()
    assert SECRET not in (tmp_path / ENCRYPTED_FILENAME).read_text(errors="replace")
    reopened = open_secret_store(tmp_path, password="correct horse")
    assert reopened.get("GITHUB_TOKEN") == SECRET and reopened.get("OTHER") == "value-two"
    with pytest.raises(PasswordRequiredError):
        open_secret_store(tmp_path)
    with pytest.raises(SecretStoreError):
        encrypt_plaintext_store(reopened, tmp_path, "again")


_PLUGIN = '''
from keyring.backend import KeyringBackend


class PassStore(KeyringBackend):
    """A third party's OS keyring, registered by its package's entry point."""

    priority = 5

    def get_password(self, service, username):
        return None

    def set_password(self, service, username, password):
        pass

    def delete_password(self, service, username):
        pass
'''

_FIND = """
import json, sys
started = []
sys.addaudithook(lambda event, args: started.append(str(args[1])) if event == "subprocess.Popen" else None)
from desktop_app.core.secret_store import find_os_keyring
ring = find_os_keyring()
others = [name for name in ("keyring.backends.macOS", "keyring.backends.Windows") if name in sys.modules]
print(json.dumps({"ring": type(ring).__module__ if ring else None, "started": started, "others": others}))
"""


def test_finding_the_keyring_runs_no_program_and_still_sees_a_third_partys(tmp_path: Path) -> None:
    """Only this platform's backends of keyring's own are loaded (the macOS one, loaded on Linux, ran
    `ldconfig`, `gcc` and `ld` to look for its frameworks); a package's registered keyring still counts,
    and one whose package is broken is passed over."""
    (tmp_path / "pass_store.py").write_text(_PLUGIN)
    (tmp_path / "broken_store.py").write_text("raise ImportError('a dependency is missing')\n")
    for name, module in (("pass-store", "pass_store"), ("broken-store", "broken_store")):
        info = tmp_path / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[keyring.backends]\n{module} = {module}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path.cwd())])}
    command = [sys.executable, "-c", _FIND]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["started"] == []
    if sys.platform.startswith("linux"):
        assert found["others"] == []
    assert found["ring"] == "pass_store"

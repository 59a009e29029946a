"""Secrets (API keys, tokens) kept outside `servers.json`, over `keyring`.

Prefers the OS keyring. Without one (headless Linux) keyring would silently pick keyrings.alt's
base64 "plaintext" file or prompt on a terminal, hanging a GUI; so fallbacks are chosen here, on
purpose, and labelled honestly: an encrypted file with a password from the UI, else a 0600
plaintext file the UI marks as unencrypted.
"""

from __future__ import annotations

import configparser
import contextlib
import importlib
import importlib.util
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Final, Literal, NoReturn

import keyring.errors
from keyring.backend import KeyringBackend

# Imported explicitly: frozen apps do not see keyrings.alt's entry points.
from keyrings.alt.file import EncryptedKeyring, PlaintextKeyring

from desktop_app.core.atomic_file import private_file
from desktop_app.core.expansion import is_secret_name
from desktop_app.core.paths import private_dir
from desktop_app.core.state_file import DamagedStateFile, read_state_text

SERVICE: Final = "mcp-desk"
# The list of stored names lives beside the secrets (keyrings cannot enumerate); never values.
_INDEX_SERVICE: Final = f"{SERVICE}:index"
_INDEX_USER: Final = "names"
ENCRYPTED_FILENAME: Final = "secrets.encrypted.cfg"
PLAINTEXT_FILENAME: Final = "secrets.plaintext.cfg"
_NOT_OS_KEYRING: Final = (
    "keyrings.",
    "keyring.backends.fail",
    "keyring.backends.null",
    "keyring.backends.chainer",
)
# keyring's own OS backends by the platform they serve, imported so they register even where entry
# points are missing (a frozen app). Only this platform's: the macOS backend, imported elsewhere, looks
# for its frameworks by running `ldconfig`, `gcc` and `ld` (nine processes, about 0.1 s at each start).
_OWN_BACKENDS: Final = "keyring.backends."
_PLATFORM_BACKENDS: Final = {
    "darwin": ("keyring.backends.macOS",),
    "win32": ("keyring.backends.Windows",),
}
_FREE_DESKTOP_BACKENDS: Final = (
    "keyring.backends.SecretService",
    "keyring.backends.libsecret",
    "keyring.backends.kwallet",
)
# keyrings.alt's reference entry, used to check the master password.
_REF_SERVICE: Final = "keyring-setting"
_REF_USER: Final = "password reference"
_REF_VALUE: Final = "password reference value"

BackendKind = Literal["os-keyring", "encrypted-file", "plaintext-file"]


class SecretStoreError(Exception):
    """The secret store could not be opened or used; the message never holds a secret."""


class WrongPasswordError(SecretStoreError):
    """The master password does not open the encrypted secrets file."""


class PasswordRequiredError(SecretStoreError):
    """An encrypted secrets file exists (or was asked for) but no password was given."""


_SHORT: Final[dict[BackendKind, str]] = {
    "os-keyring": "system keyring",
    "encrypted-file": "encrypted file",
    "plaintext-file": "plaintext file, not encrypted",
}
_WHERE: Final[dict[BackendKind, str]] = {
    "os-keyring": "in the system keyring",
    "encrypted-file": "in the password-protected secrets file",
    "plaintext-file": "in a plaintext file, not encrypted",
}


@dataclass(frozen=True)
class SecretBackend:
    """Where secrets are kept, as the UI should describe it."""

    kind: BackendKind
    label: str
    encrypted: bool
    path: Path | None = None
    """The file the secrets are in (None for the system keyring)."""

    @property
    def short(self) -> str:
        """A few words for a status bar: "system keyring", "plaintext file, not encrypted"."""
        return _SHORT[self.kind]

    @property
    def where(self) -> str:
        """Where a stored secret goes, for a sentence: "Stored {where}" never hides a plaintext file."""
        return _WHERE[self.kind]


def encryption_advice(backend: SecretBackend, platform: str | None = None) -> str:
    """What an unencrypted store means and how to get an encrypted one on this system (`platform`
    defaults to `sys.platform`); empty when the store is encrypted already."""
    if backend.encrypted:
        return ""
    platform = sys.platform if platform is None else platform
    where = f" ({backend.path})" if backend.path is not None else ""
    meaning = (
        f"Your API keys, tokens and server secrets are in a plaintext file{where}. Only your user account may"
        " open it, but every program you run, and anyone with a copy of your disk or backups, can read them."
    )
    if importlib.util.find_spec("Cryptodome") is None:
        password = "Protecting the file with a password needs the pycryptodomex package, which is not installed."
    else:
        password = (
            'To encrypt them now, choose "Protect secrets with a password…" (File\u00a0→\u00a0Settings): they move into'
            " an encrypted file, and you enter its password each time MCP Desk starts."
        )
    keyring = {
        "darwin": "Or start MCP Desk again once the macOS Keychain answers (it did not when MCP Desk started).",
        "win32": "Or start MCP Desk again once the Windows Credential Manager answers (it did not when MCP Desk"
        " started).",
    }.get(
        platform,
        "Or install and unlock a system keyring (GNOME Keyring or KWallet, reached over your desktop session's"
        " D-Bus; a machine without a desktop usually has none) and start MCP Desk again.",
    )
    keyring += " Secrets already in the plaintext file are not moved there: enter them again."
    return "\n\n".join((meaning, password, keyring))


class SecretStore:
    """Named secrets in one keyring backend under the service name "mcp-desk"."""

    def __init__(self, ring: KeyringBackend, backend: SecretBackend, service: str = SERVICE) -> None:
        self._ring = ring
        self.backend = backend
        self._service = service

    def get(self, name: str) -> str | None:
        """The secret's value, or None when it is not stored."""
        with self._errors("read", name):
            return self._ring.get_password(self._service, name)

    def set(self, name: str, value: str) -> None:
        """Store (or replace) a secret."""
        if not is_secret_name(name):
            raise ValueError(f"invalid secret name {name!r}: use letters, digits, '_', '-' or '.'")
        with self._errors("store", name):
            self._ring.set_password(self._service, name, value)
            self._write_index([*self.names(), name])

    def delete(self, name: str) -> None:
        """Remove a secret; deleting one that is not stored is not an error."""
        with self._errors("delete", name):
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                self._ring.delete_password(self._service, name)
            names = self.names()
            if name in names:
                self._write_index(n for n in names if n != name)

    def names(self) -> list[str]:
        """Names of the secrets stored through this app, sorted."""
        with self._errors("list", "index"):
            raw = self._ring.get_password(_INDEX_SERVICE, _INDEX_USER)
        try:
            parsed = json.loads(raw) if raw else []
        except ValueError:
            parsed = []  # a damaged index only hides names; the secrets themselves are intact
        return sorted({n for n in parsed if isinstance(n, str)}) if isinstance(parsed, list) else []

    def _write_index(self, names: Iterable[str]) -> None:
        self._ring.set_password(_INDEX_SERVICE, _INDEX_USER, json.dumps(sorted(frozenset(names))))

    @contextlib.contextmanager
    def _errors(self, action: str, name: str) -> Iterator[None]:
        """Turn backend failures (locked keyring, D-Bus gone) into one error type, without values."""
        try:
            yield
        except keyring.errors.KeyringError as exc:
            raise SecretStoreError(
                f"could not {action} secret {name!r} in {self.backend.label}"
                + (" (it is locked)" if isinstance(exc, keyring.errors.KeyringLocked) else "")
            ) from exc
        except (OSError, ValueError, configparser.Error) as exc:  # a secrets file damaged since it was opened
            raise SecretStoreError(f"could not {action} secret {name!r}: {self.backend.label} is damaged") from exc


def find_os_keyring(candidates: Iterable[KeyringBackend] | None = None) -> KeyringBackend | None:
    """The best real OS keyring (priority >= 1, not a file/fail/null/chainer backend), or None."""
    if candidates is None:
        candidates = _registered_keyrings(sys.platform)
    usable = [(p, ring) for ring in candidates if (p := _os_priority(ring)) is not None]
    return max(usable, key=lambda pair: pair[0])[1] if usable else None


def _registered_keyrings(platform: str) -> list[KeyringBackend]:
    """keyring's own backends for `platform` and every other one a package registers (its entry points,
    as keyring loads them), then one of each that can work here."""
    for module in _PLATFORM_BACKENDS.get(platform, _FREE_DESKTOP_BACKENDS):
        with contextlib.suppress(Exception):  # a broken optional dependency
            importlib.import_module(module)
    for entry in entry_points(group="keyring.backends"):
        if entry.module.startswith((_OWN_BACKENDS, *_NOT_OS_KEYRING)):
            continue  # keyring's own (chosen above) and the fallbacks, which are never an OS keyring
        with contextlib.suppress(Exception):
            initialise = entry.load()
            if callable(initialise):
                initialise()
    rings = []
    for backend in KeyringBackend.get_viable_backends():
        with contextlib.suppress(TypeError):  # one that needs arguments is not a keyring to open here
            rings.append(backend())
    return rings


def _os_priority(ring: KeyringBackend) -> float | None:
    if type(ring).__module__.startswith(_NOT_OS_KEYRING):
        return None
    try:
        priority = float(ring.priority)
    except Exception:  # a backend reports "not usable here" by raising
        return None
    return priority if priority >= 1 else None


def open_secret_store(
    data_dir: Path,
    *,
    password: str | None = None,
    prefer: BackendKind | None = None,
    candidates: Iterable[KeyringBackend] | None = None,
) -> SecretStore:
    """Open the best available store: OS keyring, else encrypted file (with `password`), else plaintext.

    `prefer` forces one kind (the user's choice in settings). `candidates` replaces discovery: its
    first backend, if any, is used as the OS keyring (tests pass an in-memory one). Raises
    `PasswordRequiredError` rather than falling back to plaintext when an encrypted file exists, so
    stored secrets are not silently hidden; `WrongPasswordError` for a bad password.
    """
    if prefer in (None, "os-keyring"):
        ring = next(iter(candidates), None) if candidates is not None else find_os_keyring()
        if ring is not None:
            label = f"System keyring ({_backend_label(ring)})"
            return SecretStore(ring, SecretBackend("os-keyring", label, encrypted=True))
        if prefer == "os-keyring":
            raise SecretStoreError("no system keyring is available")
    private_dir(data_dir)
    if prefer == "plaintext-file":
        return _open_plaintext(data_dir / PLAINTEXT_FILENAME)
    encrypted_path = data_dir / ENCRYPTED_FILENAME
    if prefer == "encrypted-file" or password is not None or encrypted_path.exists():
        if password is None:
            raise PasswordRequiredError(f"the encrypted secrets file {encrypted_path} needs its password")
        return _open_encrypted(encrypted_path, password)
    return _open_plaintext(data_dir / PLAINTEXT_FILENAME)


def _backend_label(ring: KeyringBackend) -> str:
    """`keyring.backends.SecretService` -> "SecretService"; `...macOS` -> "macOS"."""
    return type(ring).__module__.rpartition(".")[2]


def _check_secrets_file(path: Path) -> None:
    """`SecretStoreError` for a secrets file that cannot be read (garbage, a folder in its place): it is
    left untouched, since it may still hold the user's secrets, and the app goes on without a store."""
    try:
        text = read_state_text(path)
        if text is not None:
            configparser.RawConfigParser().read_string(text, source=str(path))
    except DamagedStateFile as exc:
        raise SecretStoreError(f"{exc}; it was left untouched") from None
    except configparser.Error as exc:
        raise SecretStoreError(
            f"{path} is not a secrets file this app can read ({exc}); it was left untouched"
        ) from None


def _no_prompt(*_args: object) -> NoReturn:
    raise PasswordRequiredError("the secrets file needs a password from the app, not from a terminal")


def _open_encrypted(path: Path, password: str) -> SecretStore:
    if not password:
        raise SecretStoreError("the master password cannot be empty")
    _check_secrets_file(path)
    try:
        ring = EncryptedKeyring()
    except ImportError as exc:  # pycryptodomex missing
        raise SecretStoreError(f"encrypted secrets need pycryptodomex: {exc}") from exc
    ring.file_path = str(path)
    # Never let keyrings.alt read a password from a terminal: the GUI would hang.
    ring._unlock = _no_prompt
    ring._get_new_password = _no_prompt
    try:
        initialised = ring._check_file()
    except ValueError as exc:  # an unknown encryption scheme
        raise SecretStoreError(f"{path} is not a secrets file this app can read: {exc}") from exc
    if initialised:
        ring.keyring_key = password
        try:
            # keyrings.alt signals a wrong key with a bare AssertionError; a garbled UTF-8
            # decode (ValueError) and, under `python -O`, a mismatched value mean the same.
            ok = ring.get_password(_REF_SERVICE, _REF_USER) == _REF_VALUE
        except (AssertionError, ValueError):
            ok = False
        if not ok:
            raise WrongPasswordError("wrong password for the encrypted secrets file")
    else:
        private_file(path)  # 0600 before any backend writes it
        ring._get_new_password = lambda: password
        ring._init_file()  # writes the reference entry keyed by this password
    private_file(path)
    return SecretStore(ring, SecretBackend("encrypted-file", f"Encrypted file ({path})", encrypted=True, path=path))


def _open_plaintext(path: Path) -> SecretStore:
    _check_secrets_file(path)
    private_file(path)  # 0600 before any backend writes it
    ring = PlaintextKeyring()
    ring.file_path = str(path)
    label = f"Plaintext file — NOT encrypted ({path})"
    return SecretStore(ring, SecretBackend("plaintext-file", label, encrypted=False, path=path))


def encrypt_plaintext_store(plain: SecretStore, data_dir: Path, password: str) -> SecretStore:
    """Move every secret of a plaintext store into a new encrypted file, then delete the plaintext.

    The plaintext file is removed only after every value reads back from the encrypted one, so a
    failure midway loses nothing.
    """
    if plain.backend.kind != "plaintext-file":
        raise SecretStoreError("only a plaintext secrets file can be moved into an encrypted one")
    encrypted = open_secret_store(data_dir, prefer="encrypted-file", password=password)
    names = plain.names()
    for name in names:
        value = plain.get(name)
        if value is not None:
            encrypted.set(name, value)
    if any(encrypted.get(name) != plain.get(name) for name in names):
        raise SecretStoreError("the encrypted copy did not read back; the plaintext file was kept")
    (data_dir / PLAINTEXT_FILENAME).unlink(missing_ok=True)
    return encrypted

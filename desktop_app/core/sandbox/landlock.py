"""The Landlock system calls, and a ruleset as plain data that can cross a command line.

Landlock lets an unprivileged process restrict itself and every process it starts, for good: access to files
is allowed only beneath the paths a rule names, and (ABI 4 on) TCP bind and connect only to the ports a rule
names. It needs neither namespaces nor setuid, so it works where bubblewrap cannot (unprivileged user
namespaces disabled, as on stock Ubuntu 24.04). Three syscalls, the same numbers on x86_64 and aarch64, called
through ctypes: PyPI's bindings are pre-releases, and this runs in the launcher, which imports only the standard
library (it starts, isolated and without `site`, before every server of this tier).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
from dataclasses import asdict, dataclass
from typing import Final

_CREATE_RULESET: Final = 444
_ADD_RULE: Final = 445
_RESTRICT_SELF: Final = 446
_CREATE_RULESET_VERSION: Final = 1
_RULE_PATH_BENEATH: Final = 1
_RULE_NET_PORT: Final = 2
_PR_SET_NO_NEW_PRIVS: Final = 38

EXECUTE: Final = 1 << 0
WRITE_FILE: Final = 1 << 1
READ_FILE: Final = 1 << 2
READ_DIR: Final = 1 << 3
REMOVE_DIR: Final = 1 << 4
REMOVE_FILE: Final = 1 << 5
MAKE_CHAR: Final = 1 << 6
MAKE_DIR: Final = 1 << 7
MAKE_REG: Final = 1 << 8
MAKE_SOCK: Final = 1 << 9
MAKE_FIFO: Final = 1 << 10
MAKE_BLOCK: Final = 1 << 11
MAKE_SYM: Final = 1 << 12
REFER: Final = 1 << 13
"""ABI 2: link or rename a file into another folder."""
TRUNCATE: Final = 1 << 14
"""ABI 3."""
IOCTL_DEV: Final = 1 << 15
"""ABI 5: ioctl on device files."""
NET_BIND_TCP: Final = 1 << 0
NET_CONNECT_TCP: Final = 1 << 1
"""ABI 4."""
SCOPE_ABSTRACT_UNIX_SOCKET: Final = 1 << 0
SCOPE_SIGNAL: Final = 1 << 1
"""ABI 6: no connecting to abstract Unix sockets (an X server's, for one) or signalling processes outside."""

READ: Final = EXECUTE | READ_FILE | READ_DIR
WRITE: Final = (
    WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_SYM | REFER | TRUNCATE
)
"""Everything but making device nodes."""
_FILE_ONLY: Final = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The rights a rule on a file (not a folder) may carry."""
NETWORK_ABI: Final = 4
"""The first ABI that restricts TCP."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _NetPortAttr(ctypes.Structure):
    _fields_ = (("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64))


class LandlockUnavailable(OSError):
    """This kernel cannot enforce Landlock (not built in, not enabled at boot, or a call it refused)."""


def handled_fs(abi: int) -> int:
    """Every file right this ABI knows: a right left unhandled would stay allowed everywhere."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


@dataclass(frozen=True)
class Rules:
    """What a confined server may reach: `(path, rights)` grants (each beneath the path), the only TCP ports it
    may connect to (where the kernel filters TCP), the environment it starts with, and the filtering proxy's
    socket when it has one (the launcher serves it on a loopback port, and adds that port)."""

    grants: tuple[tuple[str, int], ...]
    connect_ports: tuple[int, ...] = ()
    environment: tuple[tuple[str, str], ...] = ()
    proxy_socket: str | None = None

    def to_json(self) -> str:
        """One command-line argument."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> Rules:
        data = json.loads(text)
        return Rules(
            grants=tuple((str(path), int(rights)) for path, rights in data["grants"]),
            connect_ports=tuple(int(port) for port in data["connect_ports"]),
            environment=tuple((str(name), str(value)) for name, value in data["environment"]),
            proxy_socket=data["proxy_socket"],
        )


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise LandlockUnavailable(code, f"{what}: {os.strerror(code)}")
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI (1 on 5.13, 4 with TCP on 6.7, 6 with scopes on 6.12); `LandlockUnavailable`
    saying why when there is none."""
    result = _libc().syscall(
        ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    if result < 0:
        code = ctypes.get_errno()
        if code == errno.ENOSYS:
            raise LandlockUnavailable(code, "this kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK)")
        if code == errno.EOPNOTSUPP:
            raise LandlockUnavailable(code, "Landlock is not enabled at boot (add landlock to the lsm= kernel option)")
        raise LandlockUnavailable(code, f"Landlock cannot be used: {os.strerror(code)}")
    return int(result)


def _add_path(libc: ctypes.CDLL, ruleset: int, path: str, rights: int, handled: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone since the rules were built: nothing to grant
    try:
        allowed = rights & handled
        if not os.path.isdir(f"/proc/self/fd/{fd}"):
            allowed &= _FILE_ONLY
        attr = _PathBeneathAttr(allowed, fd)
        _check(
            libc.syscall(
                ctypes.c_long(_ADD_RULE),
                ctypes.c_long(ruleset),
                ctypes.c_long(_RULE_PATH_BENEATH),
                ctypes.byref(attr),
                ctypes.c_uint32(0),
            ),
            path,
        )
    finally:
        os.close(fd)


def restrict_self(rules: Rules, abi: int) -> None:
    """Set no_new_privs and confine this process (and all it starts) to `rules`, irrevocably. Raises
    `LandlockUnavailable` (or another `OSError`) rather than leave the process half-confined."""
    libc = _libc()
    zero = ctypes.c_ulong(0)
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), zero, zero, zero), "no_new_privs")
    handled = handled_fs(abi)
    attr = _RulesetAttr(handled, 0, 0)
    size = 8
    if abi >= NETWORK_ABI:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = _check(
        libc.syscall(ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)),
        "ruleset",
    )
    try:
        for path, rights in rules.grants:
            _add_path(libc, ruleset, path, rights, handled)
        if attr.handled_access_net:
            for port in rules.connect_ports:
                net = _NetPortAttr(NET_CONNECT_TCP, port)
                _check(
                    libc.syscall(
                        ctypes.c_long(_ADD_RULE),
                        ctypes.c_long(ruleset),
                        ctypes.c_long(_RULE_NET_PORT),
                        ctypes.byref(net),
                        ctypes.c_uint32(0),
                    ),
                    f"port {port}",
                )
        _check(libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_long(ruleset), ctypes.c_uint32(0)), "restrict_self")
    finally:
        os.close(ruleset)

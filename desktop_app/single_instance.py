"""One window per configuration: a second launch brings the first to the front and exits.

The first instance holds a lock file (Qt's `QLockFile` finds a lock left by a crashed process
stale by its PID, so a crash never blocks the next start) and, once its window is painted, listens
on a local socket (Qt's network module loads only then); a later launch on the same configuration
fails to take the lock, asks the first over the socket to show its window (trying again while the
first is still starting), and ends once it has answered.
"""

from __future__ import annotations

import getpass
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QCryptographicHash, QLockFile, QObject, QThread, Signal

from desktop_app.core.paths import data_dir, private_dir

SHOW: Final = b"show\n"
SHOWN: Final = b"shown\n"
TIMEOUT_MS: Final = 3000
RETRY_MS: Final = 100

if TYPE_CHECKING:
    from PySide6.QtNetwork import QLocalServer, QLocalSocket


def instance_key(config_path: Path) -> str:
    """A name for this user and configuration file, usable as a lock and local socket name."""
    identity = f"{getpass.getuser()}\0{config_path.expanduser().resolve()}"
    digest = QCryptographicHash.hash(identity.encode(), QCryptographicHash.Algorithm.Sha256)
    return "mcp-desk-" + bytes(digest.toHex().data()).decode()[:20]


class PrimaryInstance(QObject):
    """Held by the instance that owns the configuration until it shuts down."""

    sig_show_requested = Signal()
    """Another launch on this configuration asked for the window."""

    def __init__(self, key: str, lock: QLockFile) -> None:
        super().__init__()
        self._key = key
        self._lock = lock
        self._server: QLocalServer | None = None

    def listen(self) -> None:
        """Answer later launches from now on (called once the window is on screen)."""
        from PySide6.QtNetwork import QLocalServer

        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        QLocalServer.removeServer(self._key)  # a socket file left by a crash; we hold the lock, so nobody uses it
        self._server.listen(self._key)
        self._server.newConnection.connect(self._on_connection)

    def _on_connection(self) -> None:
        assert self._server is not None
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.readyRead.connect(lambda s=socket: self._on_request(s))
            socket.disconnected.connect(socket.deleteLater)

    def _on_request(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll().data()).startswith(SHOW.strip()):
            self.sig_show_requested.emit()
            socket.write(SHOWN)
            socket.flush()
        socket.disconnectFromServer()

    def release(self) -> None:
        """Let the next launch start at once (called as soon as shutting down begins)."""
        if self._server is not None:
            self._server.close()
        self._lock.unlock()


def claim(config_path: Path) -> PrimaryInstance | None:
    """Become the instance for `config_path`, or show the one that already is and return None.

    If the other instance holds the lock but does not answer (it is starting or stopping), this
    one starts anyway rather than leave the user with nothing.
    """
    key = instance_key(config_path)
    private_dir(data_dir())  # the app's own folder holds chats: 0700, even if another tool made it wider
    folder = private_dir(data_dir() / "instances")
    lock = QLockFile(str(folder / f"{key}.lock"))
    lock.setStaleLockTime(0)  # held for the app's lifetime; only a dead owner makes it stale
    if lock.tryLock(0) or not _ask_to_show(key):
        return PrimaryInstance(key, lock)
    return None


def _ask_to_show(key: str) -> bool:
    from PySide6.QtNetwork import QLocalSocket

    socket = QLocalSocket()
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    socket.connectToServer(key)
    while not socket.waitForConnected(TIMEOUT_MS):
        if time.monotonic() > deadline:
            return False
        QThread.msleep(RETRY_MS)  # the first instance listens once its window is painted
        socket.connectToServer(key)
    socket.write(SHOW)
    socket.flush()
    answered = socket.waitForReadyRead(TIMEOUT_MS) and bytes(socket.readAll().data()) == SHOWN
    socket.disconnectFromServer()
    return answered

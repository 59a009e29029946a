"""How a stdio server's process ended, and whether that is why its connection did.

The transport reports the exit code once it has stopped the process; a connection lost meanwhile is
then explained by the exit ("exited with status 1") rather than by the broken pipe it caused.
"""

from __future__ import annotations

from desktop_app.core.process_exit import describe_exit
from desktop_app.core.server_errors import ConnectionLost, is_connection_loss


class ProcessEnd:
    """The last attempt's process exit, forgotten when the next attempt starts."""

    def __init__(self) -> None:
        self.code: int | None = None
        """How the last stdio process ended, once the transport has stopped it."""

    def new_attempt(self) -> None:
        self.code = None

    def on_exit(self, returncode: int) -> None:
        self.code = returncode

    def reason(self, exc: Exception | None) -> str | None:
        """How the process ended, when that is why the connection did (not when a stop or a timeout ended it)."""
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        if self.code is None or not (exc is None or isinstance(exc, ConnectionLost) or is_connection_loss(exc)):
            return None
        return describe_exit(self.code)

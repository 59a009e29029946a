"""Taking a changed configuration without a restart where the protocol allows it.

New roots are announced (`roots/list_changed`) and a new log level is set on a 2025-era session; a
sandboxed server whose roots changed, and any other change, restart the server instead, because its
launch (command, environment, sandbox) depends on them.
"""

from __future__ import annotations

from dataclasses import replace

from mcp import Client

from desktop_app.core.asks.server_asks import ServerAsks
from desktop_app.core.connection.confinement import Confinement
from desktop_app.core.connection.negotiation import enable_legacy_logging, is_modern
from desktop_app.core.connection.server_log import ServerLog
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_errors import describe_error


class LiveConfig:
    """`ServerConnection` takes these methods; it supplies the connection they act on."""

    config: ServerConfig
    confinement: Confinement
    asks: ServerAsks
    _log: ServerLog

    @property
    def client(self) -> Client | None:
        raise NotImplementedError

    @property
    def log_level(self) -> str:
        raise NotImplementedError

    async def restart(self, config: ServerConfig | None = None) -> None:
        raise NotImplementedError

    async def apply_config(self, config: ServerConfig) -> None:
        """Take a changed configuration: new roots or log level apply live where the protocol allows,
        anything else restarts the server."""
        old, client = self.config, self.client
        live = (
            replace(
                old,
                roots=config.roots,
                log_level=config.log_level,
                trusted=config.trusted,
                auto_approve_read_only=config.auto_approve_read_only,
            )
            == config
        )
        if not live or client is None or (config.log_level != old.log_level and is_modern(client)):
            await self.restart(config)
            return
        self.config = config
        if config.roots != old.roots:
            await self.roots_changed()
        if config.log_level != old.log_level:
            await enable_legacy_logging(client, self.log_level, self._log.note)

    async def roots_changed(self) -> None:
        """The user changed this server's roots (or the defaults it uses): tell a connected server, or restart
        a sandboxed one, whose roots are the folders its sandbox lets it write to."""
        client = self.client
        if client is None:
            return
        if self.confinement.restart_for(self.asks.roots.uris()):
            self._log.note("info", "roots changed: restarting so its sandbox matches them")
            await self.restart()
            return
        try:
            await self.asks.roots_changed(client)
        except Exception as exc:
            self._log.note("warning", f"could not send roots/list_changed: {describe_error(exc)}")

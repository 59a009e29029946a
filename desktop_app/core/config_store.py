"""The user's server list as one editable thing: every change is saved at once, atomically.

The UI edits servers only through this class, so the rules (never clobber a broken file,
keep unknown keys, keep a backup) hold for every path: the editor, paste, import and toggles.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import load_config, save_config
from desktop_app.core.config_import import ImportReport, import_servers
from desktop_app.core.install_records import InstallRecords
from desktop_app.core.server_config import ServerConfig


class ConfigStore:
    """Holds `servers.json` in memory and writes it back on every change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        loaded = load_config(path)
        self._servers = dict(loaded.servers)
        self._raw = loaded.raw
        self.error: ConfigError | None = loaded.error

    @property
    def servers(self) -> dict[str, ServerConfig]:
        return dict(self._servers)

    def upsert(self, config: ServerConfig, *, previous_name: str | None = None) -> None:
        """Add or replace a server; renaming drops the old entry. Refuses to clobber a broken file.

        The tools the user switched off stay off when their entry is replaced (edited, renamed,
        updated from its registry or bundle): only `switch_tool` switches them on again.
        """
        servers = dict(self._servers)
        replaced = servers.get(previous_name) if previous_name is not None else None
        if previous_name is not None and previous_name != config.name:
            servers.pop(previous_name, None)
        if config.name in servers and previous_name != config.name:
            raise ConfigError(f"a server named '{config.name}' already exists", file=self.path.name)
        if replaced is not None and replaced.disabled_tools:
            kept = tuple(dict.fromkeys((*replaced.disabled_tools, *config.disabled_tools)))
            config = replace(config, disabled_tools=kept)
        servers[config.name] = config
        self._save(servers)
        if replaced is not None and previous_name != config.name and replaced.origin:
            InstallRecords().renamed(replaced.name, config.name)  # the user renamed it here: still their install

    def remove(self, name: str) -> None:
        servers = dict(self._servers)
        servers.pop(name, None)
        self._save(servers)

    def set_disabled(self, name: str, disabled: bool) -> ServerConfig:
        config = replace(self._servers[name], disabled=disabled)
        self._save({**self._servers, name: config})
        return config

    def switch_tool(self, name: str, tool: str, on: bool) -> ServerConfig:
        """Switch one tool of server `name` on or off and save; the other names in `disabledTools` stay."""
        old = self._servers[name]
        disabled = tuple(t for t in old.disabled_tools if t != tool) + (() if on else (tool,))
        config = replace(old, disabled_tools=disabled)
        if config != old:
            self._save({**self._servers, name: config})
        return config

    def import_from(self, source: Path) -> ImportReport:
        """Merge another client's servers in (never replacing a name we have, with `import_servers`' rules) and save."""
        report = import_servers(self._servers, source)
        self.add_imported(report)
        return report

    def add_imported(self, report: ImportReport) -> None:
        """Save the servers `report` adds, exactly as the user reviewed them; nothing when a name was taken since."""
        taken = [name for name in report.added if name in self._servers]
        if taken:
            raise ConfigError(
                f"a server named {', '.join(taken)} was added since the review; import again", file=self.path.name
            )
        if report.added:
            self._save({**self._servers, **{name: report.servers[name] for name in report.added}})

    def _save(self, servers: dict[str, ServerConfig]) -> None:
        save_config(self.path, servers, raw=self._raw)
        self._servers = servers
        self.error = None

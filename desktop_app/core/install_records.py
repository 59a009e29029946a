"""The app's own record of the installs it performed, which the organisation's `registry` rules believe.

An entry's `origin` is text in `servers.json`: an imported file or a hand edit can claim any
registry name. So every install the app carries out (registry package, remote, bundle, a domain's
card) also writes here, in a private file of the app's data folder, the server's name, the origin
it was installed from and the launch it installed (the command and its arguments, or the URL). A
`registry` rule matches only an entry whose origin is backed by such a record whose launch still
equals the entry's: an edited command is no longer what was installed. A record file that cannot
be read backs nothing (and says so in the log); it never stops the app.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Final

from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.paths import data_dir
from desktop_app.core.server_config import ServerConfig

log = logging.getLogger(__name__)

RECORDS_FILENAME: Final = "installs.json"
_PINNED_ORIGIN: Final = ("registry", "name")
"""What a `registry` rule reads from an origin; the record pins these, not the version or package."""


def records_path() -> Path:
    return data_dir() / RECORDS_FILENAME


def launch_of(config: ServerConfig) -> list[str]:
    """What starts or is contacted: the command and its arguments, or the URL."""
    return [config.command or "", *config.args] if config.is_stdio else [config.url or ""]


class InstallRecords:
    """The records in one file, read afresh each time (installs are rare, and another process may add one)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = records_path() if path is None else path

    def record(self, config: ServerConfig) -> None:
        """Remember that the app installed `config` just now (replacing an earlier record of its name)."""
        records = self._read()
        records[config.name] = {
            "origin": {key: config.origin[key] for key in _PINNED_ORIGIN if key in config.origin},
            "launch": launch_of(config),
        }
        self._write(records)

    def renamed(self, old: str, new: str) -> None:
        """The user renamed an installed server in the app: its record follows it."""
        records = self._read()
        if old in records:
            records[new] = records.pop(old)
            try:
                self._write(records)
            except OSError as exc:
                log.warning("the record of installs %s cannot be written: %s", self.path, exc)

    def backs(self, config: ServerConfig) -> bool:
        """Whether the app installed `config` as it stands: its name, its origin's registry and name, its launch."""
        record = self._read().get(config.name)
        if not isinstance(record, dict):
            return False
        origin = record.get("origin")
        if not isinstance(origin, dict) or any(origin.get(key) != config.origin.get(key) for key in _PINNED_ORIGIN):
            return False
        return record.get("launch") == launch_of(config)

    def _read(self) -> dict[str, Any]:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("the record of installs %s cannot be read, so it backs no install: %s", self.path, exc)
            return {}
        servers = document.get("servers") if isinstance(document, dict) else None
        if not isinstance(servers, dict):
            log.warning("the record of installs %s is not in its shape, so it backs no install", self.path)
            return {}
        return servers

    def _write(self, records: dict[str, Any]) -> None:
        atomic_write(self.path, json.dumps({"servers": records}, indent=2, ensure_ascii=False) + "\n")

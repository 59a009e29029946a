"""The server lists in the shape organisations already write for other clients (Claude Code's managed
settings, GitHub Copilot, VS Code's device policies), read from `managed-mcp.json` beside policy.json.

```json
{"allowedMcpServers": [{"serverName": "github"}, {"serverUrl": "https://*.acme.example/*"},
                       {"serverCommand": ["npx", "-y", "@acme/notes"]}],
 "deniedMcpServers": [{"serverUrl": "https://*.untrusted.example/*"}],
 "allowManagedMcpServersOnly": true}
```

- `deniedMcpServers`: a server any entry matches never runs, whatever allows it here or in policy.json.
- `allowedMcpServers`: absent, no list; present (even empty), only servers an entry matches run. A name
  is whatever the user typed, so where the list names commands a local server must match a
  `serverCommand` entry, and where it names URLs a remote server a `serverUrl` entry; a name alone
  lets such a server through only where the list names none of its kind.
- `allowManagedMcpServersOnly`: only servers the organisation's list allows: with no
  `allowedMcpServers`, none.
- An entry is exactly one of `serverName` (the name, exactly), `serverUrl` (the whole address, `*`
  any characters, letters of any case) or `serverCommand` (the program and every argument, exactly;
  a program without a folder matches that name in any folder).
- `mcpServers` and `$schema`, which the same file carries for other clients, are skipped; any other key
  is a mistake the file is refused for (it then blocks nothing and says why, as policy.json does).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from desktop_app.core.config_error import KeyPath, field_name
from desktop_app.core.policy.document import PolicyError, PolicyReader, read_text
from desktop_app.core.policy.location import Location
from desktop_app.core.policy.refusal import Refusal
from desktop_app.core.policy.servers import Which, describe_server, environment_refusal, same_program
from desktop_app.core.server_config import ServerConfig

EntryKind = Literal["serverName", "serverUrl", "serverCommand"]
ALLOWED: Final = "allowedMcpServers"
DENIED: Final = "deniedMcpServers"
MANAGED_ONLY: Final = "allowManagedMcpServersOnly"
_SKIPPED: Final = ("$schema", "mcpServers")
_KINDS: Final[tuple[EntryKind, ...]] = ("serverName", "serverUrl", "serverCommand")


@dataclass(frozen=True)
class McpServerEntry:
    """One entry of either list."""

    kind: EntryKind
    value: tuple[str, ...]
    """The name or the URL pattern (one item), or the command's argv."""
    field: str
    """Where it is written, e.g. `deniedMcpServers[0]`."""
    line: int

    def matches(self, config: ServerConfig, which: Which) -> bool:
        if self.kind == "serverName":
            return config.name == self.value[0]
        if self.kind == "serverUrl":
            url = config.url or ""
            return not config.is_stdio and bool(url) and _url_pattern(self.value[0]).fullmatch(url) is not None
        program, *args = self.value
        return config.is_stdio and same_program(program, config.command or "", which) and list(config.args) == args

    @property
    def words(self) -> str:
        """The entry for a person: `command npx -y @acme/notes`."""
        if self.kind == "serverName":
            return f"server name {self.value[0]}"
        if self.kind == "serverUrl":
            return f"remote server at {self.value[0]}"
        return f"command {' '.join(self.value)}"


@dataclass(frozen=True)
class ServerLists:
    """What a `managed-mcp.json` says; the empty one allows everything."""

    allowed: tuple[McpServerEntry, ...] | None = None
    denied: tuple[McpServerEntry, ...] = ()
    managed_only: bool = False
    managed_only_line: int | None = None
    allowed_line: int | None = None


@dataclass(frozen=True)
class ManagedMcpInForce:
    """The converged file as this process follows it: its lists, none, or why it is not followed."""

    lists: ServerLists = ServerLists()
    location: Location | None = None
    source: Path | None = None
    """The file the lists were read from; None when none is in force."""
    problem: str | None = None

    def refusal(self, config: ServerConfig, which: Which = shutil.which) -> Refusal | None:
        """Why `config` may not run under these lists (None: it may); `denied` first, as deny wins."""
        return self.denied(config, which) or self.not_allowed(config, which)

    def denied(self, config: ServerConfig, which: Which = shutil.which) -> Refusal | None:
        for entry in self.lists.denied:
            if entry.matches(config, which):
                return Refusal(
                    f"'{config.name}' is on the list of denied servers ({entry.words})", entry.field, entry.line
                )
        return None

    def not_allowed(self, config: ServerConfig, which: Which = shutil.which) -> Refusal | None:
        lists = self.lists
        if lists.allowed is None:
            if not lists.managed_only:
                return None
            return Refusal(
                "only servers on the organisation's list may run, and it lists none",
                MANAGED_ONLY,
                lists.managed_only_line,
            )
        kind: EntryKind = "serverCommand" if config.is_stdio else "serverUrl"
        by_kind = any(entry.kind == kind for entry in lists.allowed)
        for entry in lists.allowed:
            counts = entry.kind == kind or (entry.kind == "serverName" and not by_kind)
            if counts and entry.matches(config, which):
                return environment_refusal(config, entry.field, entry.line)
        named = (
            ""
            if not by_kind
            else f"; the list names {'commands' if config.is_stdio else 'addresses'}, so a name is not enough"
        )
        return Refusal(
            f"'{config.name}' ({describe_server(config)}) is not on the list of servers allowed to run{named}",
            ALLOWED,
            lists.allowed_line,
        )


NO_MANAGED_MCP: Final = ManagedMcpInForce()


def load_managed_mcp(location: Location) -> ManagedMcpInForce:
    """Read the file at `location`: its lists, none, or a problem that blocks nothing."""
    try:
        lists = parse_server_lists(read_text(location.path), location.path)
    except FileNotFoundError:
        if location.overridden:
            return ManagedMcpInForce(location=location, problem=f"{location.path}: there is no such file")
        return ManagedMcpInForce(location=location)
    except PolicyError as exc:
        return ManagedMcpInForce(location=location, problem=str(exc))
    except OSError as exc:
        return ManagedMcpInForce(location=location, problem=f"{location.path}: cannot be read ({exc.strerror or exc})")
    return ManagedMcpInForce(lists, location, location.path)


def parse_server_lists(text: str, source: Path) -> ServerLists:
    """The lists `text` says (read from `source`, which errors name)."""
    return _ListsReader(text, source).lists()


class _ListsReader(PolicyReader):
    def lists(self) -> ServerLists:
        top = self.object((), (ALLOWED, DENIED, MANAGED_ONLY, *_SKIPPED))
        allowed = self.entries((ALLOWED,)) if ALLOWED in top else None
        denied = self.entries((DENIED,)) if DENIED in top else ()
        managed_only = self.boolean((MANAGED_ONLY,)) if MANAGED_ONLY in top else False
        return ServerLists(allowed, denied, managed_only, self.lines.get(MANAGED_ONLY), self.lines.get(ALLOWED))

    def entries(self, path: KeyPath) -> tuple[McpServerEntry, ...]:
        value = self.at(path)
        if not isinstance(value, list):
            raise self.fail(path, "must be a list of entries")
        return tuple(self.entry((*path, index)) for index in range(len(value)))

    def entry(self, path: KeyPath) -> McpServerEntry:
        entry = self.object(path, _KINDS)
        kinds = [kind for kind in _KINDS if kind in entry]
        if len(kinds) != 1:
            raise self.fail(path, 'needs exactly one of "serverName", "serverUrl" or "serverCommand"')
        kind = kinds[0]
        where = (field_name(path), self.line(path))
        if kind != "serverCommand":
            return McpServerEntry(kind, (self.text((*path, kind)),), *where)
        argv = self.at((*path, kind))
        if not isinstance(argv, list) or not argv or not all(isinstance(item, str) for item in argv):
            raise self.fail((*path, kind), "must be the command and its arguments: a list of text, the program first")
        if not argv[0].strip():
            raise self.fail((*path, kind, 0), "must name the program")
        return McpServerEntry(kind, tuple(argv), *where)


def _url_pattern(pattern: str) -> re.Pattern[str]:
    """`*` any characters, everything else literally; letters of any case (a host's case means nothing)."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.IGNORECASE)

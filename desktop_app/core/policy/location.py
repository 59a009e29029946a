"""Where the policy file is: a folder for all users that only an administrator can write to.

- Linux and other Unixes: `/etc/mcp-desk/policy.json`
- macOS: `/Library/Application Support/mcp-desk/policy.json`
- Windows: `%ProgramData%\\mcp-desk\\policy.json`

`MCP_DESK_POLICY_FILE` names another file, for an administrator trying a policy out and for tests;
it is ignored while a policy is in place at the system's location, or the user could set it to an
empty file and step around the organisation's rules.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ENV_VAR: Final = "MCP_DESK_POLICY_FILE"
FILENAME: Final = "policy.json"


@dataclass(frozen=True)
class Location:
    """The file to read, and why the environment's choice was set aside (when it was)."""

    path: Path
    overridden: bool = False
    """The path came from `MCP_DESK_POLICY_FILE`."""
    ignored: str | None = None


def system_policy_path(platform: str = sys.platform, environ: Mapping[str, str] = os.environ) -> Path:
    """The system's location for this platform."""
    if platform == "win32":
        return Path(environ.get("ProgramData") or r"C:\ProgramData") / "mcp-desk" / FILENAME
    if platform == "darwin":
        return Path("/Library/Application Support/mcp-desk") / FILENAME
    return Path("/etc/mcp-desk") / FILENAME


def policy_location(environ: Mapping[str, str] = os.environ, system: Path | None = None) -> Location:
    """The policy file in force: the system's when one is there, else `MCP_DESK_POLICY_FILE`'s, else the
    system's location (where none is)."""
    system = system or system_policy_path(environ=environ)
    chosen = environ.get(ENV_VAR, "").strip()
    if not chosen:
        return Location(system)
    if system.exists():
        return Location(system, ignored=f"{ENV_VAR} is ignored: a policy is in place at {system}")
    return Location(Path(chosen).expanduser(), overridden=True)

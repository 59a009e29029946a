"""Where the policy files are: a folder for all users that only an administrator can write to.

- Linux and other Unixes: `/etc/mcp-desk/policy.json`
- macOS: `/Library/Application Support/mcp-desk/policy.json`
- Windows: `%ProgramData%\\mcp-desk\\policy.json`

Beside it, `managed-mcp.json` holds the server lists in the shape other clients' managed settings use
(`converged.py`). `MCP_DESK_POLICY_FILE` and `MCP_DESK_MANAGED_MCP_FILE` name other files, for an
administrator trying a policy out and for tests; each is ignored while its file is in place at the
system's location, or the user could set it to an empty file and step around the organisation's rules.
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
MANAGED_MCP_ENV_VAR: Final = "MCP_DESK_MANAGED_MCP_FILE"
MANAGED_MCP_FILENAME: Final = "managed-mcp.json"


@dataclass(frozen=True)
class Location:
    """The file to read, and why the environment's choice was set aside (when it was)."""

    path: Path
    overridden: bool = False
    """The path came from `MCP_DESK_POLICY_FILE`."""
    ignored: str | None = None


def system_policy_path(
    platform: str = sys.platform, environ: Mapping[str, str] = os.environ, filename: str = FILENAME
) -> Path:
    """The system's location for this platform."""
    if platform == "win32":
        return Path(environ.get("ProgramData") or r"C:\ProgramData") / "mcp-desk" / filename
    if platform == "darwin":
        return Path("/Library/Application Support/mcp-desk") / filename
    return Path("/etc/mcp-desk") / filename


def policy_location(
    environ: Mapping[str, str] = os.environ,
    system: Path | None = None,
    *,
    env_var: str = ENV_VAR,
    filename: str = FILENAME,
) -> Location:
    """The policy file in force: the system's when one is there, else `env_var`'s, else the system's
    location (where none is)."""
    system = system or system_policy_path(environ=environ, filename=filename)
    chosen = environ.get(env_var, "").strip()
    if not chosen:
        return Location(system)
    if system.exists():
        return Location(system, ignored=f"{env_var} is ignored: a policy is in place at {system}")
    return Location(Path(chosen).expanduser(), overridden=True)


def managed_mcp_location(environ: Mapping[str, str] = os.environ, system: Path | None = None) -> Location:
    """The converged-shape file in force (`managed-mcp.json`), found as `policy_location` finds policy.json."""
    return policy_location(environ, system, env_var=MANAGED_MCP_ENV_VAR, filename=MANAGED_MCP_FILENAME)

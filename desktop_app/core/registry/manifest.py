"""The `manifest.json` of an `.mcpb` bundle (MCPB manifest 0.1–0.4), read for installing.

Only what an install needs is kept: who and what it is, how the server starts (`server.type`,
`entry_point`, `mcp_config` with this platform's override applied), what it asks the user
(`user_config`) and where it runs (`compatibility`). A manifest that asks for something this app
cannot honour (an unknown runtime, another platform) raises `BundleError` saying so.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import platformdirs

from desktop_app.core.registry.fields import Field

SERVER_TYPES: Final = ("node", "python", "binary", "uv")
OPTION_TYPES: Final = ("string", "number", "boolean", "directory", "file")
PLATFORM_NAMES: Final = {"darwin": "macOS", "win32": "Windows", "linux": "Linux"}

OptionValue = str | int | float | bool | list[str]
_USER_DIR: Final = re.compile(r"\$\{(HOME|DESKTOP|DOCUMENTS|DOWNLOADS)\}")


def user_dirs() -> dict[str, str]:
    """`${HOME}`, `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}` as the manifest spec defines them."""
    home = str(Path.home())
    dirs = {"HOME": home, "DESKTOP": home, "DOCUMENTS": home, "DOWNLOADS": home}
    with contextlib.suppress(Exception):  # platformdirs may not know a desktop on a headless box
        dirs["DESKTOP"] = platformdirs.user_desktop_dir()
        dirs["DOCUMENTS"] = platformdirs.user_documents_dir()
        dirs["DOWNLOADS"] = platformdirs.user_downloads_dir()
    return dirs


def expand_user_dirs(text: str, dirs: Mapping[str, str] | None = None) -> str:
    """A default like `${HOME}/Documents` as the path it names."""
    found = dirs or user_dirs()
    return _USER_DIR.sub(lambda m: found[m.group(1)], text)


class BundleError(Exception):
    """The bundle cannot be installed; the message names the problem for the user."""


@dataclass(frozen=True)
class UserOption:
    """One `user_config` entry."""

    key: str
    type: str
    title: str
    description: str = ""
    required: bool = False
    default: OptionValue | None = None
    multiple: bool = False
    sensitive: bool = False
    minimum: float | None = None
    maximum: float | None = None

    def field(self) -> Field:
        default = self.default
        if isinstance(default, list):
            default = "\n".join(expand_user_dirs(v) for v in default)
        elif isinstance(default, bool):
            default = "true" if default else "false"
        elif isinstance(default, str):
            default = expand_user_dirs(default)
        return Field(
            key=self.key,
            label=self.title,
            kind="option",
            description=self.description,
            required=self.required,
            secret=self.sensitive,
            default=None if default is None else str(default),
            format=self.type,
            repeated=self.multiple,
        )


@dataclass(frozen=True)
class McpConfig:
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    description: str
    author: str
    server_type: str
    entry_point: str
    mcp_config: McpConfig | None
    display_name: str | None = None
    long_description: str | None = None
    manifest_version: str | None = None
    homepage: str | None = None
    repository: str | None = None
    license: str | None = None
    icon: str | None = None
    tools: tuple[str, ...] = ()
    prompts: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()
    runtimes: Mapping[str, str] | None = None
    user_config: tuple[UserOption, ...] = ()

    @property
    def title(self) -> str:
        return self.display_name or self.name

    def fields(self) -> list[Field]:
        return [option.field() for option in self.user_config]


def _obj(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise BundleError(f"manifest.json: {where} must be an object")
    return value


def _text(data: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise BundleError(f"manifest.json: {where}{key} {'is missing' if value is None else 'must be a string'}")
    return value


def _strings(value: object, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BundleError(f"manifest.json: {where} must be a list of strings")
    return tuple(value)


def _mcp_config(server: Mapping[str, Any], platform: str) -> McpConfig | None:
    raw = server.get("mcp_config")
    if raw is None:
        return None
    data = _obj(raw, "server.mcp_config")
    overrides = _obj(data.get("platform_overrides") or {}, "server.mcp_config.platform_overrides")
    override = _obj(overrides.get(platform) or {}, f"server.mcp_config.platform_overrides.{platform}")
    merged = {**{k: v for k, v in data.items() if k != "platform_overrides"}, **override}
    command = _text(merged, "command", "server.mcp_config.", required=True)
    assert command is not None
    env = merged.get("env")
    if env is not None and (not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values())):
        raise BundleError("manifest.json: server.mcp_config.env must map names to strings")
    return McpConfig(command, _strings(merged.get("args"), "server.mcp_config.args"), env)


def _option(key: str, value: object) -> UserOption:
    where = f"user_config.{key}"
    data = _obj(value, where)
    kind = data.get("type")
    if kind not in OPTION_TYPES:
        raise BundleError(f"manifest.json: {where}.type must be one of {', '.join(OPTION_TYPES)}")
    default = data.get("default")
    if default is not None and not isinstance(default, str | int | float | bool | list):
        raise BundleError(f"manifest.json: {where}.default has an unsupported type")
    if isinstance(default, list):
        default = list(_strings(default, f"{where}.default"))

    def number(name: str) -> float | None:
        found = data.get(name)
        if found is not None and (isinstance(found, bool) or not isinstance(found, int | float)):
            raise BundleError(f"manifest.json: {where}.{name} must be a number")
        return None if found is None else float(found)

    return UserOption(
        key=key,
        type=kind,
        title=_text(data, "title", f"{where}.") or key,
        description=_text(data, "description", f"{where}.") or "",
        required=data.get("required") is True,
        default=default,
        multiple=data.get("multiple") is True,
        sensitive=data.get("sensitive") is True,
        minimum=number("min"),
        maximum=number("max"),
    )


def parse_manifest(value: object, *, platform: str = sys.platform) -> Manifest:
    """Read a manifest; refuses unknown runtimes and bundles made for other platforms."""
    data = _obj(value, "the document")
    server = _obj(data.get("server"), "server")
    kind = server.get("type")
    if kind not in SERVER_TYPES:
        raise BundleError(
            f"this bundle needs a {kind!r} runtime, which MCP Desk cannot run (it runs {', '.join(SERVER_TYPES)})"
        )
    compatibility = _obj(data.get("compatibility") or {}, "compatibility")
    platforms = _strings(compatibility.get("platforms"), "compatibility.platforms")
    if platforms and platform not in platforms:
        wanted = ", ".join(PLATFORM_NAMES.get(p, p) for p in platforms)
        raise BundleError(f"this bundle runs on {wanted} only, not on {PLATFORM_NAMES.get(platform, platform)}")
    author = _obj(data.get("author") or {}, "author")
    repository = data.get("repository")
    runtimes = _obj(compatibility.get("runtimes") or {}, "compatibility.runtimes")

    def names(key: str) -> tuple[str, ...]:
        items = data.get(key) or []
        if not isinstance(items, list):
            raise BundleError(f"manifest.json: {key} must be a list")
        return tuple(str(_obj(i, key).get("name", "")) for i in items)

    options = _obj(data.get("user_config") or {}, "user_config")
    return Manifest(
        name=_text(data, "name", "", required=True) or "",
        version=_text(data, "version", "", required=True) or "",
        description=_text(data, "description", "") or "",
        author=_text(author, "name", "author.") or "",
        server_type=kind,
        entry_point=_text(server, "entry_point", "server.") or "",
        mcp_config=_mcp_config(server, platform),
        display_name=_text(data, "display_name", ""),
        long_description=_text(data, "long_description", ""),
        manifest_version=_text(data, "manifest_version", "") or _text(data, "dxt_version", ""),
        homepage=_text(data, "homepage", ""),
        repository=_text(repository, "url", "repository.") if isinstance(repository, dict) else None,
        license=_text(data, "license", ""),
        icon=_text(data, "icon", ""),
        tools=names("tools"),
        prompts=names("prompts"),
        platforms=platforms,
        runtimes={k: str(v) for k, v in runtimes.items()},
        user_config=tuple(_option(k, v) for k, v in options.items()),
    )

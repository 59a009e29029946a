"""The sandbox a newly installed local server gets: rights derived from what it declares, each with why.

Servers installed from the registry or a bundle run sandboxed by default; the install's consent shows
these rights, and the user may go without the sandbox there. They come only from what the install knows:
- a folder the user gives it (a filesystem server's folder argument, a `filepath` value, a bundle's
  `directory` setting) is written to `allowWrite`;
- a host that one of its values names (an `https://…` argument or variable) goes to `allowedDomains`,
  unless the value names this computer or a local-network address (the user may list those by hand);
- the package registry its runner downloads it from: `registry.npmjs.org` for `npx`, `pypi.org` and
  `files.pythonhosted.org` for `uvx`/`pipx`/`uv`, or the host of the registry the entry names instead
  (one on this computer or the local network only when the entry comes from a registry there too: a
  public registry's entry may not open the way into the user's network by naming it).
  A sandboxed server has its own, empty package cache (`bubblewrap.PACKAGE_CACHES`), so the runner
  downloads the package inside the sandbox at first start; without the registry it could never start,
  and downloading it outside first would run the package's install scripts unconfined. The price: the
  server may reach that registry later too, and the consent says so.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from desktop_app.core.config_error import ConfigError
from desktop_app.core.network_guard import is_loopback_host
from desktop_app.core.sandbox.settings import SandboxSettings, sandbox_from_dict

NPM_HOSTS: Final = ("registry.npmjs.org",)
PYPI_HOSTS: Final = ("pypi.org", "files.pythonhosted.org")
RUNNER_HOSTS: Final = {"npx": NPM_HOSTS, "uvx": PYPI_HOSTS, "uv": PYPI_HOSTS, "pipx": PYPI_HOSTS}
"""Where each runner downloads packages from when the entry names no other registry."""
_URL: Final = re.compile(r"\b(?:https?|wss?)://([^\s/?#\"'<>]+)", re.IGNORECASE)


def _host(authority: str) -> str | None:
    """The host of a URL's authority (`user@host:port`), or None when there is none to list."""
    try:
        host = urlsplit(f"//{authority}").hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


def is_local(host: str) -> bool:
    """This computer or a local-network address, as written (names are judged by the proxy when used)."""
    if is_loopback_host(host) or host.endswith(".local"):
        return True
    try:
        return not ipaddress.ip_address(host).is_global
    except ValueError:
        return False


def _listable(host: str) -> bool:
    """Whether `host` is a name or address `allowedDomains` can hold (IPv6 cannot be listed)."""
    try:
        sandbox_from_dict({"network": {"allowedDomains": [host]}}, ())
    except ConfigError:
        return False
    return True


def _folder(path: str) -> bool:
    """An absolute folder (or one in the home) other than the whole filesystem: what `allowWrite` holds."""
    return (path.startswith("/") and path.rstrip("/") != "") or path == "~" or path.startswith("~/")


@dataclass
class Rights:
    """What a new server may write and reach, each with why (in the consent's words), in the order found."""

    write: dict[str, str] = field(default_factory=dict)
    reach: dict[str, str] = field(default_factory=dict)
    withheld: list[str] = field(default_factory=list)
    """What the server would need but is not given, for the consent's notes."""

    def folder(self, path: str, why: str) -> None:
        """A folder the user gave the server (anything but an absolute folder is left out)."""
        path = path.strip()
        if _folder(path) and "${" not in path:
            self.write.setdefault(path, why)

    def runner(self, tool: str, registry_url: str | None = None, *, local_ok: bool = False) -> None:
        """The registry `tool` downloads the package from: `registry_url`'s host, or its usual one. One on this
        computer or the local network only when `local_ok` (the entry comes from a registry there too)."""
        why = f"{tool} downloads the package from it when the server first starts"
        if registry_url:
            host = _host(urlsplit(registry_url).netloc)
            if host and _listable(host) and (local_ok or not is_local(host)):
                self.reach.setdefault(host, why)
            elif host and is_local(host):
                self.withheld.append(
                    f"Its package registry {host} is on this computer or your network, named by a registry that is"
                    f" not: the sandbox does not let it connect there, so {tool} cannot download the package."
                )
            return
        for host in RUNNER_HOSTS.get(tool, ()):
            self.reach.setdefault(host, why)

    def hosts_in(self, text: str, why: str) -> None:
        """The hosts of the web addresses `text` names, but none on this computer or the local network."""
        for match in _URL.finditer(text):
            host = _host(match.group(1))
            if host and not is_local(host) and _listable(host):
                self.reach.setdefault(host, why)

    def settings(self) -> SandboxSettings | None:
        """The entry's `sandbox` object; None when it grants nothing (the entry then needs none)."""
        if not self.write and not self.reach:
            return None
        return SandboxSettings(allow_write=tuple(self.write), allowed_domains=tuple(self.reach))

    def why(self) -> dict[str, str]:
        """Each right (a path or a host) and why the server has it."""
        return {**self.write, **self.reach}

"""What a registry entry may put on a runner's command line (npx, uvx, pipx, docker).

A registry entry is publisher text, and the runners take options from the same argv that names
the package. Three things would make the consent's "npm package X" untrue:
    - a package name, version or registry URL that is an option (`--call=…`) or not a name at all:
      each is held to its registry's own grammar (npm package names, PEP 508 names and PEP 440-style
      versions, OCI references, http(s) URLs);
    - a runtime argument that swaps the package or where it comes from (npx `--package`/`--call`/
      `--registry`, uvx `--from`/`--with`/`--index-url`/`--python`, …): refused by name, since
      runtime arguments are otherwise the runner's own options by design and are shown whole;
    - a runtime option written without its value, which takes the package name as its value and
      leaves the first package argument to be run instead (npx, uvx and docker all do this): the
      planner ends the runner's options with `--` before the package, which all three honour.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.model import Package

_NPM_NAME: Final = re.compile(r"(?:@[a-z0-9][a-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*")
_PYPI_NAME: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_VERSION: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*")
_OCI_PATH: Final = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_OCI_REFERENCE: Final = re.compile(
    rf"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?/)?{_OCI_PATH}(?:/{_OCI_PATH})*"
    r"(?::\w[\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?"
)
_OCI_TAG: Final = re.compile(r"\w[\w.-]{0,127}")
_GRAMMARS: Final = {"npm": (_NPM_NAME, _VERSION), "pypi": (_PYPI_NAME, _VERSION), "oci": (_OCI_REFERENCE, _OCI_TAG)}
_MAX_NAME: Final = 255

SWAPPING_OPTIONS: Final = {
    "npx": (
        {"package", "call", "registry", "userconfig", "globalconfig", "node-options", "script-shell", "shell"},
        "pc",
    ),
    "uvx": (
        {
            "from",
            "with",
            "with-editable",
            "with-requirements",
            "index",
            "default-index",
            "index-url",
            "extra-index-url",
            "find-links",
            "config-file",
            "python",
        },
        "wifp",
    ),
}
"""Per runner: long options (without dashes) and short letters that change which package runs."""


def check_package(package: Package) -> None:
    """Refuse an identifier, version or registry URL that its registry's grammar does not allow."""
    kind = package.registry_type.lower()
    grammar = _GRAMMARS.get(kind)
    if grammar is None:
        return
    name, version = grammar
    if len(package.identifier) > _MAX_NAME or name.fullmatch(package.identifier) is None:
        raise PlanError(f"the registry's package name {package.identifier!r} is not a valid {kind} name")
    if package.version and version.fullmatch(package.version) is None:
        raise PlanError(f"the registry's version {package.version!r} for {package.identifier} is not a valid version")
    base = package.registry_base_url
    if base is not None:
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.netloc or re.search(r"\s", base):
            raise PlanError(f"the registry's package registry URL {base!r} is not an http(s) address")


def check_runtime_options(tool: str, argv: Iterable[str]) -> None:
    """Refuse runtime arguments that make the runner fetch or start another package than the one shown."""
    longs, shorts = SWAPPING_OPTIONS.get(tool, (set(), ""))
    for arg in argv:
        if arg.startswith("--"):
            option = arg[2:].partition("=")[0].lower()
            swaps = option in longs or option.endswith(":registry")  # npm's per-scope registry
        else:
            swaps = arg.startswith("-") and any(letter in shorts for letter in arg[1:].partition("=")[0])
        if swaps:
            raise PlanError(f"the server's runtime argument {arg!r} would make {tool} run another package")

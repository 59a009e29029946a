"""Which installed servers have a newer version in the registry they came from.

An install records its origin in the entry (`"origin": {"registry", "name", "version",
"package"}`); this module reads it back, asks each registry for the latest version, and offers
the earlier answers again so an update only asks for what changed. The update itself is a new
install plan and goes through the consent step like the first one.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from desktop_app.core.registry.client import RegistryClient, RegistryError
from desktop_app.core.registry.fields import Answers, Field
from desktop_app.core.registry.model import ServerEntry
from desktop_app.core.server_config import ServerConfig

log = logging.getLogger(__name__)

_SECRET_REF = re.compile(r"^\$\{secret:[^}]+\}$")


@dataclass(frozen=True)
class Installed:
    """An entry's record of the registry version it was installed from."""

    entry: str
    registry: str
    name: str
    version: str
    package: str


def installed_from(config: ServerConfig) -> Installed | None:
    origin = config.origin
    registry, name, version = origin.get("registry"), origin.get("name"), origin.get("version")
    if not (registry and name and version):
        return None
    return Installed(config.name, registry, name, version, origin.get("package", ""))


def find_installed(servers: Iterable[ServerConfig], registry: str, name: str) -> ServerConfig | None:
    """The entry installed from `name` in `registry`, if any (updates replace it)."""
    for config in servers:
        found = installed_from(config)
        if found is not None and found.registry == registry and found.name == name:
            return config
    return None


async def find_updates(
    servers: Iterable[ServerConfig], client_for: Callable[[str], RegistryClient]
) -> dict[str, ServerEntry]:
    """Entry name -> the registry's latest entry, for installed servers whose version differs.

    Registries that cannot be reached are skipped (logged): a missing badge is better than an error.
    """
    installed = [item for config in servers if (item := installed_from(config)) is not None]

    async def latest(item: Installed) -> tuple[Installed, ServerEntry | None]:
        try:
            return item, await client_for(item.registry).get(item.name)
        except RegistryError as exc:
            log.info("no update check for %s: %s", item.entry, exc)
            return item, None

    answers = await asyncio.gather(*(latest(item) for item in installed))
    return {
        item.entry: entry
        for item, entry in answers
        if entry is not None and entry.server.version != item.version and entry.official.status != "deleted"
    }


def previous_answers(config: ServerConfig, fields: Iterable[Field]) -> Answers:
    """What the entry already says for environment variables and headers (secrets stay stored)."""
    values: Mapping[str, str] = {**config.env, **config.headers}
    answers: dict[str, tuple[str, ...]] = {}
    for item in fields:
        if item.kind in ("env", "header") and item.key in values and not _SECRET_REF.match(values[item.key]):
            answers[item.key] = (values[item.key].replace("$${", "${"),)
    return answers

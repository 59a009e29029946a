"""An MCP Server Card (SEP-2127): a remote server's identity and how to connect to it, as its
publisher describes it before anyone connects.

`$schema` (the v1 or v2 Server Card schema), `name` (`namespace/name`), `version`, `description`,
optional `title`, `websiteUrl`, `repository`, `icons`, `_meta`, and `remotes` (type, URL template,
headers, variables, supported protocol versions) read with the registry's shapes
(`core/publisher_document`). A card lists no tools and no packages: what a server offers is
listed once connected, and nothing is run from a card. It is advisory: what the server says about
itself once connected wins, and a card is never a reason to trust a server.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from desktop_app.core.publisher_document import (
    REMOTE_TRANSPORTS,
    DocumentError,
    Icon,
    Repository,
    Transport,
    as_object,
    items,
    optional_text,
    parse_icon,
    parse_repository,
    parse_transport,
    required_text,
    where,
)

SCHEMAS: Final = tuple(
    f"https://static.modelcontextprotocol.io/schemas/{version}/server-card.schema.json" for version in ("v1", "v2")
)
_NAME: Final = re.compile(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+")
MAX_NAME: Final = 200
MAX_VERSION: Final = 255
MAX_REMOTES: Final = 10


@dataclass(frozen=True, kw_only=True)
class ServerCard:
    """What a domain says one of its servers is and where it listens."""

    schema: str
    name: str
    version: str
    description: str
    title: str | None = None
    website_url: str | None = None
    repository: Repository | None = None
    icons: tuple[Icon, ...] = ()
    remotes: tuple[Transport, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def display_name(self) -> str:
        return self.title or self.name.rpartition("/")[2]


def parse_card(value: object, path: str = "the card") -> ServerCard:
    """A Server Card, strictly: `DocumentError` names the first field that does not match."""
    data = as_object(value, path)
    schema = required_text(data, "$schema", path)
    if schema not in SCHEMAS:
        raise DocumentError(f"{where(path, '$schema')} is not a Server Card schema MCP Desk reads ({schema!r})")
    name = required_text(data, "name", path)
    if len(name) > MAX_NAME or _NAME.fullmatch(name) is None:
        raise DocumentError(f"{where(path, 'name')} must look like namespace/name, not {name!r}")
    version = required_text(data, "version", path)
    if len(version) > MAX_VERSION:
        raise DocumentError(f"{where(path, 'version')} is longer than {MAX_VERSION} characters")
    remotes = items(data, "remotes", path)
    if len(remotes) > MAX_REMOTES:
        raise DocumentError(f"{where(path, 'remotes')} lists more than {MAX_REMOTES} endpoints")
    repository = data.get("repository")
    return ServerCard(
        schema=schema,
        name=name,
        version=version,
        description=required_text(data, "description", path),
        title=optional_text(data, "title", path),
        website_url=optional_text(data, "websiteUrl", path),
        repository=None if repository is None else parse_repository(repository, where(path, "repository")),
        icons=tuple(parse_icon(i, where(where(path, "icons"), n)) for n, i in enumerate(items(data, "icons", path))),
        remotes=tuple(
            parse_transport(r, where(where(path, "remotes"), n), allowed=REMOTE_TRANSPORTS)
            for n, r in enumerate(remotes)
        ),
        meta=as_object(data.get("_meta") or {}, where(path, "_meta")),
    )

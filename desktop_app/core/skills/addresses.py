"""Every address is a pair (server, URI): which server a URI belongs to, skills included.

A URI alone is routed to the one server that claims it, judged by the strongest claim any server makes:

1. **listed**: the server lists the URI as a resource, or one of its skills the loader accepts lists it as
   a file. A skill counts here only where its own server also lists or templates the URI, or no server's
   template matches it: a skill cannot pull a URI away from the server whose template serves it.
2. **in a skill's folder**: it lies in the folder of one of the server's skills the loader accepts (with
   the same proviso), so a file the skill does not list is refused in the skill's words.
3. **templated**: one of the server's resource templates matches it.
4. **a rejected skill's**: a skill the loader rejects lists it or holds it in its folder (so the read is
   refused with the reason rather than as unknown); such a skill claims nothing any other server claims.

Several servers claiming at the strongest level is said, never settled by their names' order: the read is
refused naming them all, and the model names one (`server`). A reader that already has the pair (the
window, which always knows the server) goes straight to it.

A skill entry listing an address that another server lists as a resource, without offering a skill at it
itself, is refused when it is listed (`without_refused_skills`): a skill cannot take another server's
resources, nor block them. Templates do not count there: a catch-all template (`skill://{+path}`, which
every skills server has) would make every skill of every other server look taken.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import replace

from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate

from desktop_app.core.catalog import Catalog
from desktop_app.core.extensions.skills import SkillEntry
from desktop_app.core.skills.manifest import in_folder_of, problem


class AddressError(LookupError):
    """A URI cannot be routed as asked; the message says why, for the model or the user."""


class AmbiguousAddress(AddressError):
    """More than one server claims a URI and the reader did not say which."""

    def __init__(self, uri: str, servers: Iterable[str]) -> None:
        self.uri = uri
        self.servers = tuple(sorted(servers))
        super().__init__(
            f"{uri} is offered by more than one server ({', '.join(self.servers)}): "
            "say which with `server` and read it again."
        )


def addresses(entry: SkillEntry) -> tuple[str, ...]:
    """The URIs a skill entry claims: its `SKILL.md` and every file it lists."""
    return tuple(dict.fromkeys((entry.uri, *(f.uri for f in entry.files or ()))))


def template_servers(catalog: Catalog, uri: str) -> list[str]:
    """The servers one of whose resource templates matches `uri`."""
    found: list[str] = []
    for server, template in catalog.templates():
        if server in found:
            continue
        try:
            if UriTemplate.parse(template.uri_template).match(uri) is not None:
                found.append(server)
        except InvalidUriTemplate:
            continue
    return found


def claimants(catalog: Catalog, uri: str) -> tuple[str, ...]:
    """The servers making the strongest claim on `uri` (see the module's docstring); empty when none does."""
    templated = template_servers(catalog, uri)
    listed = set(catalog.listers(uri))
    for server, entry in catalog.skills_with(uri):
        if problem(entry) is None and (server in listed or server in templated or not templated):
            listed.add(server)
    if listed:
        return tuple(sorted(listed))
    folders = {
        server
        for server, entry in catalog.skills()
        if problem(entry) is None and in_folder_of(entry, uri) and (server in templated or not templated)
    }
    if folders:
        return tuple(sorted(folders))
    if templated:
        return tuple(sorted(templated))
    return tuple(sorted({server for server, entry in _skills_holding(catalog, uri)}))


def route(catalog: Catalog, uri: str, server: str | None = None) -> str | None:
    """The server a read of `uri` goes to: `server` when named, else the one claimant; None when none claims it.

    Raises `AddressError` for a server that is not connected, `AmbiguousAddress` for several claimants.
    """
    if server is not None:
        if server not in catalog.servers:
            raise AddressError(
                f"No server named '{server}' is connected. Servers: {json.dumps(sorted(catalog.servers))}."
            )
        return server
    found = claimants(catalog, uri)
    if len(found) > 1:
        raise AmbiguousAddress(uri, found)
    return found[0] if found else None


def linked_from(catalog: Catalog, uri: str, origin: str) -> str:
    """The server a link to `uri` written by server `origin` goes to: the one other server claiming it, else `origin`
    (which wrote the link; several claimants are never chosen between by name)."""
    found = claimants(catalog, uri)
    return found[0] if len(found) == 1 and origin not in found else origin


def skills_of(catalog: Catalog, server: str, uri: str) -> list[SkillEntry]:
    """`server`'s skills that `uri` concerns (a file they list, or in their folder), the one it names first."""
    return [entry for owner, entry in _skills_holding(catalog, uri) if owner == server]


def _skills_holding(catalog: Catalog, uri: str) -> Iterator[tuple[str, SkillEntry]]:
    yield from catalog.skills_with(uri)
    listed = {(server, entry.uri) for server, entry in catalog.skills_with(uri)}
    for server, entry in catalog.skills():
        if (server, entry.uri) not in listed and in_folder_of(entry, uri):
            yield server, entry


def also_offering(catalog: Catalog, server: str, uri: str) -> tuple[str, ...]:
    """The other servers that list `uri` too, as a resource or in a skill (what a skill's question must say)."""
    others = set(catalog.listers(uri)) | {s for s, _ in catalog.skills_with(uri)}
    others.discard(server)
    return tuple(sorted(others))


def without_refused_skills(catalog: Catalog) -> tuple[Catalog, dict[tuple[str, str], str]]:
    """`catalog` less the skill entries that list another server's resources, and why each was refused,
    by (server, skill URI)."""
    refused: dict[tuple[str, str], str] = {}
    for server, entry in catalog.skills():
        why = _taken(catalog, server, entry)
        if why is not None:
            refused[(server, entry.uri)] = why
    if not refused:
        return catalog, refused
    servers = dict(catalog.servers)
    for name in {server for server, _ in refused}:
        snapshot = servers[name]
        assert snapshot.skills is not None  # it listed the refused entries
        kept = tuple(e for e in snapshot.skills.entries if (name, e.uri) not in refused)
        servers[name] = replace(snapshot, skills=replace(snapshot.skills, entries=kept, by_uri={}))
    return Catalog(servers), refused


def _taken(catalog: Catalog, server: str, entry: SkillEntry) -> str | None:
    """Why `entry` of `server` claims another server's address, or None when it claims none."""
    for uri in addresses(entry):
        for other in catalog.listers(uri):
            if other != server and not any(s == other for s, _ in catalog.skills_with(uri)):
                return f"it lists {uri}, which server '{other}' serves"
    return None

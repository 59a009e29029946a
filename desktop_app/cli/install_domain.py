"""`mcp-desk install example.com` (or a URL): add a server a domain describes in its Server Cards.

The domain's catalog and cards are read (`core/discovery`), one server is chosen (`--server` when
the domain lists several), its first usable endpoint is planned with the registry's machinery
(`--set` answers, secrets to the store, everything the domain wrote kept literal) and goes through
the same consent as a registry install. Once saved, the server is connected once and its card is
compared with what the server says about itself; disagreements are printed, never obeyed.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from desktop_app.core.config_store import ConfigStore
from desktop_app.core.discovery.address import DiscoveryError, check_resolved
from desktop_app.core.discovery.cache import DocumentCache
from desktop_app.core.discovery.card import ServerCard
from desktop_app.core.discovery.compare import compare_card
from desktop_app.core.discovery.discover import DomainListing, FoundServer, discover
from desktop_app.core.discovery.endpoints import consent_notes, endpoints
from desktop_app.core.discovery.origin import card_origin, card_source, find_card_install
from desktop_app.core.expansion import SecretLookup
from desktop_app.core.host import ServerHost
from desktop_app.core.network_guard import Resolver, system_resolver
from desktop_app.core.paths import cache_dir
from desktop_app.core.publisher_document import Transport
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.fields import Answers
from desktop_app.core.registry.plan import InstallPlan, entry_name_for, plan_url
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from desktop_app.core.terminal_text import printable

_SETTLE_MARGIN_S: Final = 5.0


@dataclass(frozen=True)
class CardInstall:
    """A plan from a card, with what the check after connecting needs."""

    plan: InstallPlan
    previous: ServerConfig | None
    card: ServerCard
    remote: Transport


def is_domain(target: str) -> bool:
    """A URL, or a host name (registry names always have one '/', bundle files end in .mcpb)."""
    lowered = target.lower()
    if lowered.startswith(("https://", "http://")):
        return True
    return "/" not in target and not lowered.endswith(".mcpb") and ("." in target or ":" in target)


def discovery_cache() -> DocumentCache:
    return DocumentCache(cache_dir() / "discovery")


def choose(listing: DomainListing, wanted: str | None) -> FoundServer:
    """The server `--server` names (card name or catalog identifier), or the domain's only one."""
    shown = ", ".join(printable(s.card.name if s.card else s.identifier) for s in listing.servers)
    if wanted is None:
        if len(listing.servers) != 1:
            raise PlanError(f"{listing.domain.host} lists {len(listing.servers)} servers: choose one with --server")
        found = listing.servers[0]
    else:
        matches = [s for s in listing.servers if wanted in (s.identifier, s.card.name if s.card else None)]
        if not matches:
            raise PlanError(f"{listing.domain.host} lists no server {wanted!r} (it lists: {shown or 'none'})")
        found = matches[0]
    if found.card is None:
        raise PlanError(f"the card of {printable(found.display_name)} cannot be used: {found.problem}")
    return found


async def plan_from_domain(
    store: ConfigStore,
    args: argparse.Namespace,
    answers: Answers,
    stored: Callable[[], list[str]],
    resolve: Resolver = system_resolver,
) -> CardInstall:
    """Read the domain, choose the server and its endpoint, and plan the entry (nothing is written). The
    finished address is resolved (`resolve`): a public domain's name that points inside is refused."""
    listing = await discover(args.target, cache=discovery_cache(), resolve=resolve)
    found = choose(listing, args.server)
    card, domain = found.card, listing.domain
    assert card is not None
    usable = [e for e in endpoints(card, domain) if e.problem is None]
    if not usable:
        problems = [e.problem for e in endpoints(card, domain)]
        raise PlanError(f"{card.name} offers no address MCP Desk can use: {problems[0] if problems else 'none'}")
    endpoint = usable[0]
    previous = find_card_install(store.servers.values(), domain, card.name)
    entry_name = args.name or (previous.name if previous else entry_name_for(card.name, store.servers))
    plan = plan_url(
        endpoint.remote,
        answers,
        entry_name=entry_name,
        origin=card_origin(domain, card, found.card_url),
        source=card_source(domain, card),
        stored=stored() if previous is not None else (),
        replaces=previous.name if previous else None,
    )
    try:
        notes = consent_notes(plan.config.url or "", domain, found.warnings)
    except DiscoveryError as exc:
        raise PlanError(str(exc)) from None
    problem = await check_resolved(plan.config.url or "", domain, "the server's address", resolve)
    if problem is not None:
        raise PlanError(problem)
    return CardInstall(replace(plan, notes=plan.notes + notes), previous, card, endpoint.remote)


async def check_card(config: ServerConfig, secrets: SecretLookup | None, card: ServerCard, remote: Transport) -> str:
    """Connect `config` once and say how the server compares with its card (terminal text)."""
    host = ServerHost(secrets=secrets, policy=RestartPolicy(max_attempts=0))
    host.start([config])
    try:
        try:
            await host.wait_settled(config.timeout + _SETTLE_MARGIN_S)
        except TimeoutError:
            return f"'{config.name}' did not answer within {config.timeout:g} s; its card was not checked.\n"
        connection = host.connection(config.name)
        status, catalog = connection.status, connection.catalog
        if status.state is ServerState.NEEDS_SIGN_IN:
            return f"'{config.name}' asks you to sign in first: mcp-desk login {config.name}\n"
        if status.state is not ServerState.READY or catalog is None:
            return f"'{config.name}' could not connect: {status.reason or status.summary}\n"
        info = catalog.server_info
        said = f"{info.name} {info.version}" if info is not None else "nothing about itself"
        lines = [f"Connected to '{config.name}': the server says {said} (protocol {catalog.protocol_version})."]
        mismatches = compare_card(card, info, catalog.protocol_version, remote)
        if mismatches:
            lines.append("Its card and the server disagree (the server's word counts):")
            lines += [f"  {line}" for line in mismatches]
        else:
            lines.append("The server matches its card.")
        return printable("\n".join(lines)) + "\n"
    finally:
        await host.stop_all()

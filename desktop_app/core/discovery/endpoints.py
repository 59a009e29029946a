"""A card's endpoints as the user is offered them, and what the consent says about the one chosen.

Each remote is labelled with its transport and its exact URL (template), refused when the domain may
not send MCP Desk there (plain http off this computer, a `user@` part, this computer or the local
network from a domain on the internet) and flagged when it is on another host than the domain: a
card on example.com may describe a server anywhere, which the user should read before agreeing.
Once the user's answers fill the URL's variables, the finished address is checked the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.core.discovery.address import DiscoveryError, DomainAddress, check_url
from desktop_app.core.discovery.card import ServerCard
from desktop_app.core.publisher_document import Transport

ADVISORY = (
    "This is what {host} says about the server; MCP Desk connects to it as an untrusted server and"
    " compares it with what the server says about itself once connected."
)


@dataclass(frozen=True)
class Endpoint:
    remote: Transport
    label: str
    problem: str | None = None
    warnings: tuple[str, ...] = ()


def endpoints(card: ServerCard, domain: DomainAddress) -> list[Endpoint]:
    """Every remote of `card`, in the card's order, each with its refusal or warnings."""
    found = []
    for remote in card.remotes:
        url = remote.url or ""
        label = f"{'Server-sent events' if remote.type == 'sse' else 'Streamable HTTP'}: {url}"
        if url.startswith("{"):
            found.append(Endpoint(remote, label, warnings=("the whole address comes from your answers",)))
            continue
        findings = check_url(url, domain, "this address")
        found.append(Endpoint(remote, label, findings.problem, findings.warnings))
    return found


def consent_notes(url: str, domain: DomainAddress, card_warnings: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The notes for the consent on the finished `url`; `DiscoveryError` when it may not be used."""
    findings = check_url(url, domain, "the server's address")
    if findings.problem is not None:
        raise DiscoveryError(findings.problem)
    return (*card_warnings, *findings.warnings, ADVISORY.format(host=domain.host))

"""What an entry installed from a Server Card remembers, so installing it again updates it.

`"origin": {"domain", "name", "version", "package": "remote", "card"}`: the domain as shown (ASCII
host and port), the card's name and version, and where the card was read. An entry is the same
install when its domain and card name match, as a registry install matches registry and name.
"""

from __future__ import annotations

from collections.abc import Iterable

from desktop_app.core.discovery.address import DomainAddress
from desktop_app.core.discovery.card import ServerCard
from desktop_app.core.server_config import ServerConfig


def card_origin(domain: DomainAddress, card: ServerCard, card_url: str | None) -> dict[str, str]:
    return {
        "domain": domain.host,
        "name": card.name,
        "version": card.version,
        "package": "remote",
        "card": card_url or "",
    }


def card_source(domain: DomainAddress, card: ServerCard) -> str:
    """The consent's one line: what is installed and who described it."""
    return f"Server Card {card.name} {card.version} on {domain.host}"


def find_card_install(servers: Iterable[ServerConfig], domain: DomainAddress, name: str) -> ServerConfig | None:
    """The entry installed from `name`'s card on `domain`, if any (installing again replaces it)."""
    for config in servers:
        if config.origin.get("domain") == domain.host and config.origin.get("name") == name:
            return config
    return None

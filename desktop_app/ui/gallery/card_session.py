"""One install pane's conversation for a server a domain describes in a Server Card.

The same steps as a registry remote (`InstallSession`): the card's addresses are the ways to install,
its variables and headers the form, the registry's plan keeps everything the domain wrote literal and
sends secrets to the store, and the same consent card shows the exact URL and headers. For a
domain that is not this computer, the address's host is resolved first (`check_resolved`): a name
that points into this computer or the local network is refused before the consent. Once the
server is running, the card is compared with what the server says about itself, in the pane.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject
from PySide6.QtGui import QIcon

from desktop_app.bridge import CoreBridge
from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.discovery.address import DiscoveryError, DomainAddress, check_resolved
from desktop_app.core.discovery.card import ServerCard
from desktop_app.core.discovery.compare import compare_card
from desktop_app.core.discovery.discover import FoundServer
from desktop_app.core.discovery.endpoints import consent_notes, endpoints
from desktop_app.core.discovery.origin import card_origin, card_source, find_card_install
from desktop_app.core.network_guard import Resolver, system_resolver
from desktop_app.core.publisher_document import Transport
from desktop_app.core.registry.choices import Choice
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.plan import InstallPlan, entry_name_for, plan_url
from desktop_app.core.server_config import ServerConfig
from desktop_app.ui.gallery.install_pane import InstallPane
from desktop_app.ui.gallery.install_session import InstallSession


class CardSession(InstallSession):
    """Drives an `InstallPane` for one server of a domain's catalog."""

    def __init__(
        self, pane: InstallPane, bridge: CoreBridge, parent: QObject | None = None, resolve: Resolver = system_resolver
    ) -> None:
        super().__init__(pane, bridge, parent, resolve)
        self._domain: DomainAddress | None = None
        self._found: FoundServer | None = None
        self._planned: tuple[ServerCard, Transport] | None = None
        """The card and address of the last plan: what the running server is compared with."""

    def show_found(self, domain: DomainAddress, found: FoundServer, icon: QIcon) -> None:
        """A server from the domain's catalog: its card, its addresses (refused ones greyed), its form."""
        self.withdraw("Another server was selected: nothing was installed.")
        self._client, self._entry, self._bundle = None, None, None
        self._domain, self._found, self._watching = domain, found, None
        self.pane.show_found(found, icon, domain)
        card = found.card
        if card is None:
            self.pane.install_box.hide()
            return
        self._choices = [Choice("remote", e.label, remote=e.remote, problem=e.problem) for e in endpoints(card, domain)]
        usable = [i for i, c in enumerate(self._choices) if c.available]
        selected = (usable or [0])[0]
        self.pane.set_choices(self._choices, selected)
        if not self._choices:
            self.pane.show_problem("The card lists no address to connect to.")
        self._label_review(card.version)
        self._on_choice(selected)

    def _previous(self) -> ServerConfig | None:
        if self._domain is None or self._found is None or self._found.card is None:
            return None
        servers = self.bridge.store.servers.values() if self.bridge.store else []
        return find_card_install(servers, self._domain, self._found.card.name)

    def _on_choice(self, index: int) -> None:
        if (choice := self._usable_choice(index, "Cannot connect to this address")) is None:
            return
        self.pane.show_problem(None)
        self._set_fields(choice.fields())

    async def _plan(self) -> tuple[InstallPlan, ServerConfig | None]:
        domain, found = self._domain, self._found
        assert domain is not None and found is not None and found.card is not None
        card = found.card
        remote = self._choices[self.pane.choice.currentIndex()].remote
        assert remote is not None
        previous = self._previous()
        taken = self.bridge.store.servers if self.bridge.store else {}
        plan = plan_url(
            remote,
            self.pane.answers(),
            entry_name=previous.name if previous else entry_name_for(card.name, taken),
            origin=card_origin(domain, card, found.card_url),
            source=card_source(domain, card),
            stored=self._stored(),
            replaces=previous.name if previous else None,
        )
        try:
            notes = consent_notes(plan.config.url or "", domain, found.warnings)
        except DiscoveryError as exc:
            raise PlanError(str(exc)) from None
        problem = await check_resolved(plan.config.url or "", domain, "the server's address", self.resolve)
        if problem is not None:
            raise PlanError(problem)
        self._planned = (card, remote)
        return replace(plan, notes=plan.notes + notes), previous

    def _ready(self, catalog: ServerCatalog | None) -> None:
        if self._planned is None or catalog is None:
            return
        card, remote = self._planned
        self.pane.show_card_check(compare_card(card, catalog.server_info, catalog.protocol_version, remote))

"""One install pane's conversation with the core: what to ask, the plan, the consent, the outcome.

A session shows either a registry entry (with its ways to install) or a bundle opened from disk.
Reviewing builds the plan from the form, a remote's host resolved and checked first (a registry on
the internet may not point at this computer or the local network); the consent card appears in the
pane through a `CardAsker`; after a yes the entry is saved through the bridge, the server starts,
and the pane follows its state until it is ready (with its resources counted) or has failed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QIcon

from desktop_app.bridge import CoreBridge
from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.network_guard import Resolver, system_resolver
from desktop_app.core.registry.answer_values import secret_name
from desktop_app.core.registry.bundle import Bundle
from desktop_app.core.registry.bundle_plan import plan_bundle
from desktop_app.core.registry.choices import Choice, choices, download_bundle
from desktop_app.core.registry.client import RegistryClient
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.fields import Field
from desktop_app.core.registry.install import InstallConsent, InstallError, install
from desktop_app.core.registry.manifest import BundleError
from desktop_app.core.registry.model import ServerEntry
from desktop_app.core.registry.plan import (
    InstallPlan,
    check_remote_address,
    entry_name_for,
    plan_package,
    plan_remote,
)
from desktop_app.core.registry.updates import find_installed, previous_answers
from desktop_app.core.secret_store import SecretStoreError
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.gallery.consent_card import ConsentCard
from desktop_app.ui.gallery.install_pane import InstallPane

log = logging.getLogger(__name__)
CLOSED = "The window was closed: nothing was installed."


def _count(catalog: ServerCatalog | None) -> str:
    if catalog is None:
        return "listing what it offers…"
    n = len(catalog.resources)
    return f"{n} resource{'' if n == 1 else 's'}, {len(catalog.tools)} tool{'' if len(catalog.tools) == 1 else 's'}"


class InstallSession(QObject):
    """Drives one `InstallPane` for a registry entry or a bundle file."""

    sig_installed = Signal(str)
    """An install (or update) was saved; carries the entry's name."""

    def __init__(
        self,
        pane: InstallPane,
        bridge: CoreBridge,
        parent: QObject | None = None,
        resolve: Resolver = system_resolver,
    ) -> None:
        """`resolve` answers for the host names a remote's address is checked with before it is saved."""
        super().__init__(parent)
        self.pane = pane
        self.bridge = bridge
        self.resolve = resolve
        self.asker = CardAsker(pane.show_card, self)
        self.asker.register(InstallConsent, ConsentCard)
        self._task: asyncio.Task[Any] | None = None
        self._client: RegistryClient | None = None
        self._entry: ServerEntry | None = None
        self._choices: list[Choice] = []
        self._bundle: Bundle | None = None
        self._bundle_origin: dict[str, str] = {}
        self._watching: str | None = None
        pane.sig_choice_changed.connect(self._on_choice)
        pane.sig_review.connect(lambda: self._run(self._review(), "Reviewing the install"))
        pane.sig_sign_in.connect(self._on_sign_in)
        # Bound methods (not lambdas): Qt drops these connections when the window and its session go.
        bridge.server_state_changed.connect(self._on_state)
        bridge.catalog_changed.connect(self._on_catalog)

    # -- what is shown ---------------------------------------------------------------------

    def _run(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        """One piece of work at a time: a new selection cancels what the previous one started."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = self.bridge.spawn(work, what)

    def _previous(self) -> ServerConfig | None:
        servers = self.bridge.store.servers.values() if self.bridge.store else []
        if self._entry is not None and self._client is not None:
            return find_installed(servers, self._client.base_url, self._entry.server.name)
        if self._bundle is not None:
            name = self._bundle.manifest.name
            return next(
                (c for c in servers if c.origin.get("package") == "mcpb" and c.origin.get("name") == name), None
            )
        return None

    def _stored(self) -> list[str]:
        secrets = self.bridge.secrets
        try:
            return secrets.names() if secrets is not None else []
        except SecretStoreError:
            return []

    def show_entry(self, client: RegistryClient, entry: ServerEntry, icon: QIcon, kind: str | None = None) -> None:
        """A registry server; `kind` preselects a way to install (an update keeps the installed one)."""
        self.withdraw("Another server was selected: nothing was installed.")
        self._client, self._entry, self._bundle = client, entry, None
        self._watching = None
        self._choices = choices(entry)
        self.pane.show_entry(entry, icon)
        usable = [i for i, c in enumerate(self._choices) if c.available]
        preferred = [i for i in usable if self._choices[i].kind == kind]
        selected = (preferred or usable or [0])[0]
        self.pane.set_choices(self._choices, selected)
        self._label_review(entry.server.version)
        self._on_choice(selected)

    def show_bundle(self, bundle: Bundle, icon: QIcon, source: str, origin: dict[str, str] | None = None) -> None:
        """A bundle from disk (or a registry download); its manifest's user_config is the form."""
        self.withdraw("Another bundle was opened: nothing was installed.")
        self._client, self._entry, self._bundle = None, None, bundle
        self._bundle_origin = dict(origin or {"name": bundle.manifest.name})
        self._watching = None
        self.pane.show_manifest(bundle.manifest, icon, source)
        self.pane.set_choices([Choice("mcpb", f"This bundle: {source}")])
        self._label_review(bundle.manifest.version)
        self._set_fields(bundle.manifest.fields())

    def _label_review(self, version: str) -> None:
        previous = self._previous()
        installed = previous.origin.get("version") if previous is not None else None
        if installed is None:
            self.pane.review.setText("Review and install…")
        elif installed == version:
            self.pane.review.setText(f"Review reinstall of {version}…")
        else:
            self.pane.review.setText(f"Review update from {installed} to {version}…")

    def _set_fields(self, fields: list[Field]) -> None:
        previous = self._previous()
        prefill = previous_answers(previous, fields) if previous is not None else {}
        stored = set(self._stored())
        entry = previous.name if previous else None
        kept = {f.key for f in fields if f.secret and entry is not None and secret_name(entry, f.key) in stored}
        self.pane.form.set_store(self.bridge.secrets.backend if self.bridge.secrets is not None else None)
        self.pane.set_fields(fields, prefill, kept)

    def _usable_choice(self, index: int, cannot: str = "Cannot install this way here") -> Choice | None:
        """The way to install at `index`, or None after saying why it cannot be used."""
        if not 0 <= index < len(self._choices):
            return None
        choice = self._choices[index]
        self.pane.error.clear()
        if not choice.available:
            self.pane.show_problem(f"{cannot}: {choice.problem}")
            return None
        return choice

    def _on_choice(self, index: int) -> None:
        if (choice := self._usable_choice(index)) is None:
            return
        refusal = self.bridge.host.managed.feature_refusal("bundles") if choice.kind == "mcpb" else None
        if refusal is not None:
            self.pane.show_problem(f"Cannot install this way here: {refusal}.")  # not even downloaded
            return
        self.pane.show_problem(None)
        if self._entry is not None:
            self._bundle = None  # a registry bundle is downloaded again when chosen again
        if choice.kind == "mcpb" and self._entry is not None:
            self.pane.set_fields([])
            self._run(self._fetch_bundle(choice), "Downloading the bundle")
        elif self._entry is not None:
            self._set_fields(choice.fields())

    async def _fetch_bundle(self, choice: Choice) -> None:
        assert self._client is not None and self._entry is not None and choice.package is not None
        self.pane.set_busy(True, "Downloading and checking the bundle…")
        try:
            self._bundle = await download_bundle(self._client, choice.package)
        except BundleError as exc:
            self.pane.show_problem(str(exc))
            self.pane.result.hide()
            return
        finally:
            self.pane.set_busy(False)
        self.pane.result.hide()
        server = self._entry.server
        self._bundle_origin = {"registry": self._client.base_url, "name": server.name, "version": server.version}
        self._set_fields(self._bundle.manifest.fields())

    # -- installing ------------------------------------------------------------------------

    async def _plan(self) -> tuple[InstallPlan, ServerConfig | None]:
        previous = self._previous()
        taken = self.bridge.store.servers if self.bridge.store else {}
        answers = self.pane.answers()
        stored = self._stored()
        replaces = previous.name if previous else None
        if self._bundle is not None:
            name = previous.name if previous else entry_name_for(self._bundle.manifest.name, taken)
            plan = plan_bundle(
                self._bundle, answers, entry_name=name, origin=self._bundle_origin, stored=stored, replaces=replaces
            )
            return plan, previous
        assert self._entry is not None and self._client is not None
        choice = self._choices[self.pane.choice.currentIndex()]
        name = previous.name if previous else entry_name_for(self._entry.server.name, taken)
        url = self._client.base_url
        if choice.package is not None:
            plan = plan_package(
                self._entry,
                choice.package,
                answers,
                entry_name=name,
                registry_url=url,
                stored=stored,
                replaces=replaces,
            )
        else:
            assert choice.remote is not None
            plan = plan_remote(
                self._entry, choice.remote, answers, entry_name=name, registry_url=url, stored=stored, replaces=replaces
            )
            await check_remote_address(plan.config.url or "", url, self.resolve)
        return plan, previous

    async def _review(self) -> None:
        self.pane.error.clear()
        try:
            plan, previous = await self._plan()
        except (PlanError, BundleError) as exc:
            self.pane.show_error(str(exc))
            return
        self.pane.set_busy(True)
        try:
            done = await install(
                plan,
                asker=self.asker,
                save=self.bridge.save_server,
                secrets=self.bridge.secrets,
                rules=self.bridge.host.managed,
                update_from=previous.origin.get("version") if previous else None,
                previous=previous,
            )
        except InstallError as exc:
            self.pane.show_result(f"Nothing was installed: {exc}", ok=False)
            return
        finally:
            self.pane.set_busy(False)
        if not done:
            return
        self.pane.installed()
        self.pane.show_result(f"Added '{plan.config.name}' to your servers. Starting it…")
        self._watching = plan.config.name
        self.sig_installed.emit(plan.config.name)
        self._on_state(plan.config.name, None)  # it may be up already: saving started it, and a state is said once

    def _on_catalog(self, name: str, _catalog: object) -> None:
        self._on_state(name, None)

    def _on_state(self, name: str, _status: ServerStatus | None) -> None:
        if name != self._watching:
            return
        connection = self.bridge.host.connections.get(name)
        if connection is None:
            return
        status = connection.status
        self.pane.offer_sign_in(None)
        if status.state is ServerState.READY:
            self.pane.show_result(f"'{name}' is running: {_count(connection.catalog)}.", ok=True)
            self._ready(connection.catalog)
        elif status.state is ServerState.NEEDS_SIGN_IN:
            # The app's own sign-in flow: the same as the Servers panel's button.
            self.pane.show_result(f"'{name}' was added. It asks you to sign in before it shows what it offers.")
            self.pane.offer_sign_in("Sign in…")
        elif status.state is ServerState.SIGNING_IN:
            self.pane.show_result("Waiting for you to finish signing in in your browser…")
            self.pane.offer_sign_in("Cancel sign-in")
        elif status.state is ServerState.FAILED:
            reason = status.reason or status.summary
            self.pane.show_result(
                f"'{name}' was added but could not start: {reason}. Remove it from the Servers panel, or fix it there.",
                ok=False,
            )

    def _ready(self, catalog: ServerCatalog | None) -> None:
        """The installed server is running (`catalog` is what it said and offers); subclasses may look closer."""

    def _on_sign_in(self) -> None:
        name = self._watching
        connection = self.bridge.host.connections.get(name) if name else None
        if name is None or connection is None:
            return
        if connection.status.state is ServerState.SIGNING_IN:
            self.bridge.cancel_sign_in(name)
        else:
            self.bridge.sign_in(name)

    def withdraw(self, why: str = CLOSED) -> None:
        """Withdraw an open consent (declines it) and stop pending work."""
        self.asker.withdraw(why)
        if self._task is not None and not self._task.done():
            self._task.cancel()

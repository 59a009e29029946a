"""Choosing a model from the empty conversation: the card while none is chosen, and what it picks.

A provider opens its settings; a model of a server running on this computer is used at once (saved
like the settings page saves it). The local servers are looked for only while the card is offered,
on 127.0.0.1 only (`desktop_app.core.model.local_servers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QObject

from desktop_app.bridge import CoreBridge
from desktop_app.core.model.local_servers import KNOWN_SERVERS, LocalKind, LocalServer, find_local_servers
from desktop_app.ui.chat.chat_controller import ChatController
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.model_chooser import ModelChooser
from desktop_app.ui.shell.settings_actions import SettingsActions


class ModelChoice(QObject):
    """Offers the card in `view` while `chat` has no model; `kinds` are the local servers asked for."""

    def __init__(
        self,
        bridge: CoreBridge,
        chat: ChatController,
        view: ConversationView,
        composer: Composer,
        settings_actions: SettingsActions,
        kinds: Sequence[LocalKind] = KNOWN_SERVERS,
    ) -> None:
        super().__init__(view)
        self._bridge = bridge
        self._chat = chat
        self._view = view
        self._composer = composer
        self._settings_actions = settings_actions
        self.kinds = kinds
        self.card: ModelChooser | None = None
        settings_actions.sig_applied.connect(self.update)
        self.update()

    def update(self) -> None:
        """Offer the card while no model is chosen; take it away once one is."""
        if self._chat.settings.model is not None:
            if self.card is not None:
                self._view.set_empty_card(None)
                self.card.deleteLater()
                self.card = None
            return
        if self.card is None:
            self.card = ModelChooser()
            self.card.sig_provider_chosen.connect(lambda chosen: self._settings_actions.open_settings(provider=chosen))
            self.card.sig_local_chosen.connect(self.use)
            self.card.sig_look_again.connect(self.look)
            self._view.set_empty_card(self.card)
            self.look()

    def look(self) -> None:
        """Ask the usual ports of this computer which models run there."""
        if self.card is not None:
            self.card.set_searching()
            self._bridge.spawn(self._find(self.card), "Looking for model servers on this computer")

    async def _find(self, card: ModelChooser) -> None:
        servers = await find_local_servers(self.kinds)
        if card is self.card:
            card.show_found(servers)

    def use(self, server: LocalServer, model: str) -> None:
        """Chat with `model` on `server` from now on, saved as the settings page would save it."""
        if not model:
            return
        settings = replace(self._chat.settings, model=server.model_settings(model), provider=server.provider.id)
        self._settings_actions.apply_settings(settings)
        self._view.add_message(
            "info", f"Chatting with {model} on {server.label} ({server.address}). Change it in File → Settings."
        )
        self._composer.editor.setFocus()

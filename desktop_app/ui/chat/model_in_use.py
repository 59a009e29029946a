"""The model the chat uses: the user's settings, the engine built from them, and what servers sample with.

The engine is built on first use, once a model is chosen; new settings reach the same engine.
"""

from __future__ import annotations

from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import AppSettings
from desktop_app.core.asks.service import SamplingModel
from desktop_app.core.chat.approval import ApprovalPolicy
from desktop_app.core.chat.engine import ChatEngine


class ModelInUse:
    """The settings in use and the engine for them (None while no model is chosen)."""

    def __init__(self, bridge: CoreBridge, settings: AppSettings, policy: ApprovalPolicy) -> None:
        self._bridge = bridge
        self._policy = policy
        self.settings = settings
        self._engine: ChatEngine | None = None

    def tell_servers(self, chat: str) -> None:
        """Servers that sample use the user's model; "allow for this chat" means `chat`, the one on screen."""
        asks = self._bridge.host.asks
        asks.chat = chat
        model = self.settings.model
        asks.model = None if model is None else SamplingModel(model, self.settings.provider, self._bridge.secrets)

    def apply(self, settings: AppSettings, chat: str) -> None:
        """Use `settings` from now on, in the engine too if there is one; `chat` is the one on screen."""
        self.settings = settings
        self.tell_servers(chat)
        if self._engine is not None and settings.model is not None:
            self._engine.settings = settings.model
            self._engine.options = settings.chat

    def engine(self) -> ChatEngine | None:
        if self.settings.model is None:
            return None
        if self._engine is None:
            self._engine = ChatEngine(
                self._bridge.host,
                self.settings.model,
                self._policy,
                options=self.settings.chat,
                secrets=self._bridge.secrets,
            )
        return self._engine

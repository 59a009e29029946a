"""The status bar's figures: servers ready, the model, what the context costs, where secrets are kept."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QStatusBar

from desktop_app.bridge import CoreBridge
from desktop_app.core.chat.context import SystemPrompt
from desktop_app.core.chat.events import Usage
from desktop_app.core.events import SamplingUsage
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_status import ServerStatus
from desktop_app.ui.chat_controller import ChatController
from desktop_app.ui.style import ERROR_STYLE


class StatusMeter:
    """Labels in `bar`, kept up to date from the bridge and the chat."""

    def __init__(self, bar: QStatusBar, bridge: CoreBridge, chat: ChatController) -> None:
        self._bridge = bridge
        self._chat = chat
        self.servers_label = QLabel()
        self.model_label = QLabel()
        self.context_label = QLabel()
        self.context_label.setObjectName("contextMeter")
        self.secrets_label = QLabel()
        self._meter: dict[str, str] = {}
        self._catalog_tokens = 0
        self._sampled = (0, 0)
        bar.clearMessage()  # the start-up note: a message would hide the labels added under it
        bar.addWidget(self.servers_label)
        bar.addWidget(self.model_label)
        bar.addWidget(self.context_label)
        bar.addPermanentWidget(self.secrets_label)
        self.show_secrets_backend()
        self.update_counts()
        self.update_model()
        bridge.secrets_changed.connect(self.show_secrets_backend)
        bridge.server_state_changed.connect(self.update_counts)
        bridge.server_removed.connect(self.update_counts)
        bridge.sampling_used.connect(self._on_sampling)
        chat.usage_changed.connect(self._on_usage)
        chat.context_changed.connect(self._on_context)
        chat.dump_measured.connect(self._on_dump)

    def show_secrets_backend(self, store: SecretStore | None = None) -> None:
        store = store or self._bridge.secrets
        if store is None:
            self.secrets_label.setText("Secrets: unavailable")
            self.secrets_label.setToolTip("No secret store could be opened (or it is locked).")
            self.secrets_label.setStyleSheet(ERROR_STYLE)
            return
        backend = store.backend
        short = {
            "os-keyring": "system keyring",
            "encrypted-file": "encrypted file",
            "plaintext-file": "plaintext file, not encrypted",
        }[backend.kind]
        self.secrets_label.setText(f"Secrets: {short}")
        self.secrets_label.setToolTip(backend.label)
        self.secrets_label.setStyleSheet("" if backend.encrypted else ERROR_STYLE)

    def update_counts(self, *_: str | ServerStatus) -> None:
        host = self._bridge.host
        self.servers_label.setText(f"Servers ready: {host.ready_count()}/{len(host.connections)}")

    def update_model(self) -> None:
        model = self._chat.settings.model
        self.model_label.setText(f"Model: {model.model}" if model else "Model: not chosen (File → Settings)")

    def _on_context(self, prompt: SystemPrompt) -> None:
        self._catalog_tokens = prompt.catalog_tokens
        listed = f"{prompt.listed}/{prompt.total} listed" if prompt.summarized else f"{prompt.total} entries"
        self._meter["catalog"] = f"Context: catalog {prompt.catalog_tokens:,} tokens ({listed})"
        self._meter.pop("dump", None)
        full = prompt.full_catalog_tokens
        whole = "" if full is None else f"; the full catalog would be {full:,}"
        self.context_label.setToolTip(
            f"System prompt {prompt.tokens:,} tokens{whole}.\n"
            "Resource contents are never in the prompt: the model reads them on demand."
        )
        self._show_meter()

    def _on_dump(self, tokens: int) -> None:
        share = f" ({self._catalog_tokens / tokens:.1%})" if tokens else ""
        self._meter["dump"] = f"vs {tokens:,} if every resource were pasted{share}"
        self._show_meter()

    def _on_usage(self, usage: Usage) -> None:
        self._meter["usage"] = f"last call {usage.prompt_tokens:,} in / {usage.completion_tokens:,} out"
        self._show_meter()

    def _on_sampling(self, used: SamplingUsage) -> None:
        self._sampled = (self._sampled[0] + used.prompt_tokens, self._sampled[1] + used.completion_tokens)
        self._meter["sampling"] = f"servers' sampling {self._sampled[0]:,} in / {self._sampled[1]:,} out"
        self._show_meter()

    def _show_meter(self) -> None:
        order = ("catalog", "dump", "usage", "sampling")
        self.context_label.setText("  ·  ".join(self._meter[key] for key in order if key in self._meter))

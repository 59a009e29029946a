"""The status bar's figures: servers ready, the model, what the context costs, where secrets are kept.

Each says less rather than being cut when the window is narrow (`FittingLabel`); the whole wording is
the label's text and, in sentences, its tooltip. What the context costs is a small bar against the
model's context window (`context_bar`), its numbers in its tooltip. An unencrypted secret store is a
link that offers to encrypt it.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from PySide6.QtWidgets import QStatusBar

from desktop_app.bridge import CoreBridge
from desktop_app.core.chat.context import SystemPrompt
from desktop_app.core.chat.events import Usage
from desktop_app.core.events import SamplingUsage
from desktop_app.core.secret_store import SecretStore, encryption_advice
from desktop_app.core.server_status import ServerStatus
from desktop_app.qt_kit.theme import danger, themed
from desktop_app.ui.chat.chat_controller import ChatController
from desktop_app.ui.widgets.context_bar import ContextBar, ContextUse
from desktop_app.ui.widgets.fitting_label import FittingLabel

ENCRYPT_TIP: Final = "Click to protect your secrets with a password now."
RESOURCE_CONTENTS_TIP: Final = "Resource contents are never in the prompt: the model reads them on demand."


class MeterPart(NamedTuple):
    """One figure of the context meter: its long and short wording (None: left out when space is short)
    and its sentence for the tooltip."""

    long: str
    short: str | None
    sentence: str


def plural(count: int, one: str, many: str | None = None) -> str:
    """ "1 entry", "9 entries": `count` with the right form of the noun."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def times(ratio: float) -> str:
    """A ratio above 1 as people say it: "1.5×", "214×"."""
    return f"{ratio:.1f}×" if ratio < 10 else f"{ratio:,.0f}×"


def dump_part(catalog_tokens: int, dump_tokens: int) -> MeterPart | None:
    """What pasting every resource would cost, compared with the catalog the model gets instead."""
    if dump_tokens <= 0 or catalog_tokens <= 0:
        return None
    if dump_tokens > catalog_tokens:
        ratio = times(dump_tokens / catalog_tokens)
        return MeterPart(
            f"pasting every resource would take {dump_tokens:,} ({ratio} as many)",
            f"{ratio} less than pasting all",
            f"Pasting every resource into the prompt instead would take {dump_tokens:,} tokens, {ratio} as many.",
        )
    return MeterPart(
        f"pasting every resource would take only {dump_tokens:,}",
        None,
        f"Pasting every resource into the prompt instead would take only {dump_tokens:,} tokens: these resources"
        " are small, and the catalog grows with the number of entries, not with their size.",
    )


class StatusMeter:
    """Labels in `bar`, kept up to date from the bridge and the chat."""

    def __init__(self, bar: QStatusBar, bridge: CoreBridge, chat: ChatController) -> None:
        self._bridge = bridge
        self._chat = chat
        self.servers_label = FittingLabel()
        self.servers_label.setObjectName("serversMeter")
        self.model_label = FittingLabel(elide_last=True)
        self.model_label.setObjectName("modelMeter")
        self.context_bar = ContextBar()
        self.context_label = self.context_bar.label
        """The meter's whole wording is its text; it shows only the bar's short figure."""
        self.secrets_label = FittingLabel()
        self.secrets_label.setObjectName("secretsMeter")
        self._meter: dict[str, MeterPart] = {}
        self._prompt_tip = ""
        self._catalog_tokens = 0
        self._prompt: SystemPrompt | None = None
        self._windows: dict[str, int | None] = {}
        """Each model's context window, as the model library's table gives it."""
        self._last_call: tuple[str, Usage] | None = None
        """The last call to the model and the chat it was in: another chat's is not this one's context."""
        self._sampled = (0, 0)
        bar.clearMessage()  # the start-up note: a message would hide the labels added under it
        bar.addWidget(self.servers_label)
        bar.addWidget(self.model_label)
        bar.addWidget(self.context_bar, 1)
        bar.addPermanentWidget(self.secrets_label)
        self.show_secrets_backend()
        self.update_counts()
        self.update_model()
        bridge.secrets_changed.connect(self.show_secrets_backend)
        bridge.server_state_changed.connect(self.update_counts)
        bridge.server_removed.connect(self.update_counts)
        bridge.sampling_used.connect(self._on_sampling)
        chat.usage_changed.connect(self._on_usage)
        chat.meter.context_changed.connect(self._on_context)
        chat.meter.dump_measured.connect(self._on_dump)
        chat.meter.window_known.connect(self._on_window)
        chat.conversations_changed.connect(self._show_meter)  # a new chat, another one opened

    def show_secrets_backend(self, store: SecretStore | None = None) -> None:
        store = store or self._bridge.secrets
        if store is None:
            self.secrets_label.set_wordings("Secrets: unavailable", "No secrets")
            self.secrets_label.setToolTip("No secret store could be opened (or it is locked).")
            danger(self.secrets_label)
            self.secrets_label.set_clickable(False)
            return
        backend = store.backend
        self.secrets_label.set_wordings(f"Secrets: {backend.short}", *_SECRETS_SHORT.get(backend.kind, ()))
        advice = encryption_advice(backend)
        self.secrets_label.setToolTip(f"{ENCRYPT_TIP}\n\n{advice}" if advice else backend.label)
        themed(self.secrets_label, lambda p: "" if backend.encrypted else f"color: {p.danger};")
        self.secrets_label.set_clickable(backend.kind == "plaintext-file")

    def update_counts(self, *_: str | ServerStatus) -> None:
        host = self._bridge.host
        ready, total = host.ready_count(), len(host.connections)
        self.servers_label.set_wordings(f"Servers ready: {ready}/{total}", f"Ready: {ready}/{total}")
        self.servers_label.setToolTip(f"{ready} of {plural(total, 'configured server')} ready to use.")

    def update_model(self) -> None:
        model = self._chat.settings.model
        if model:
            self.model_label.set_wordings(f"Model: {model.model}", model.model)
            self.model_label.setToolTip(f"The model your messages go to: {model.model}.")
        else:
            self.model_label.set_wordings("Model: not chosen (File → Settings)", "Model: not chosen")
            self.model_label.setToolTip("No model is chosen yet: choose one in File → Settings.")
        self._show_meter()  # the bar is against this model's window (its own count follows)

    def _on_context(self, prompt: SystemPrompt) -> None:
        self._prompt = prompt
        self._catalog_tokens = prompt.catalog_tokens
        entries = plural(prompt.total, "entry", "entries")
        listed = f"{prompt.listed:,} of {entries} listed" if prompt.summarized else entries
        self._meter["catalog"] = MeterPart(
            f"Context: catalog {prompt.catalog_tokens:,} tokens ({listed})",
            f"Context: {prompt.catalog_tokens:,} tokens",
            f"The catalog of {listed} takes {prompt.catalog_tokens:,} tokens of the system prompt.",
        )
        self._meter.pop("dump", None)
        full = prompt.full_catalog_tokens
        whole = "" if full is None else f"; the full catalog would take {full:,}"
        self._prompt_tip = f"The system prompt is {prompt.tokens:,} tokens{whole}."
        self._show_meter()

    def _on_dump(self, tokens: int) -> None:
        part = dump_part(self._catalog_tokens, tokens)
        if part is None:
            self._meter.pop("dump", None)
        else:
            self._meter["dump"] = part
        self._show_meter()

    def _on_window(self, model: str, tokens: int | None) -> None:
        self._windows[model] = tokens
        self._show_meter()

    def _on_usage(self, usage: Usage) -> None:
        self._last_call = (self._chat.conversation.id, usage)
        sent, got = usage.prompt_tokens, usage.completion_tokens
        self._meter["usage"] = MeterPart(
            f"last call {sent:,} in / {got:,} out",
            f"last {sent:,} in / {got:,} out",
            f"The last call to the model sent {plural(sent, 'token')} and got {plural(got, 'token')} back.",
        )
        self._show_meter()

    def _on_sampling(self, used: SamplingUsage) -> None:
        self._sampled = (self._sampled[0] + used.prompt_tokens, self._sampled[1] + used.completion_tokens)
        sent, got = self._sampled
        self._meter["sampling"] = MeterPart(
            f"servers' sampling {sent:,} in / {got:,} out",
            None,
            f"Servers asked the model for completions (sampling): {plural(sent, 'token')} in,"
            f" {plural(got, 'token')} out so far.",
        )
        self._show_meter()

    def _show_meter(self) -> None:
        parts = [self._meter[key] for key in ("catalog", "dump", "usage", "sampling") if key in self._meter]
        use = self._use()
        if not parts or use is None:  # nothing counted yet (no model): no bar, the words kept
            self.context_bar.hide()
            self.context_label.set_wordings(*self._wordings(parts))
            return
        sentences = [self._prompt_tip, *(part.sentence for part in parts), RESOURCE_CONTENTS_TIP]
        self.context_bar.show_use(use, self._wordings(parts), [sentence for sentence in sentences if sentence])

    def _wordings(self, parts: list[MeterPart]) -> list[str]:
        """The meter's whole wording and shorter ones, each once, longest first."""
        if not parts:
            return [""]
        kept = [self._meter[key] for key in ("catalog", "usage") if key in self._meter]
        wordings = [
            "  ·  ".join(part.long for part in parts),
            "  ·  ".join([parts[0].long, *(part.short for part in parts[1:] if part.short)]),
            "  ·  ".join(part.short for part in parts if part.short),
            "  ·  ".join(part.short for part in kept if part.short),
            parts[0].short or parts[0].long,
        ]
        return list(dict.fromkeys(wordings))

    def _use(self) -> ContextUse | None:
        """What the next request would carry: the last call's in this chat (its prompt and its answer),
        else the system prompt alone."""
        prompt, model = self._prompt, self._chat.settings.model
        if prompt is None or model is None:
            return None
        last = self._last_call[1] if self._last_call and self._last_call[0] == self._chat.conversation.id else None
        used = max(prompt.tokens, last.prompt_tokens + last.completion_tokens) if last else prompt.tokens
        conversation = used - prompt.tokens if last else None
        window = self._windows.get(model.model)
        return ContextUse(used, window, model.model, prompt.tokens, prompt.catalog_tokens, conversation)


_SECRETS_SHORT: Final = {
    "os-keyring": ("Secrets: keyring",),
    "encrypted-file": ("Secrets: encrypted",),
    "plaintext-file": ("Secrets: not encrypted",),
}

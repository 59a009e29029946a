"""Settings' Model group: the provider and model, the API key (into the secret store) and the limits.

A local server's models (Ollama, or any OpenAI-compatible one) are asked for off the loop and
offered in the list; the note that none were listed is about the address last asked, never an
earlier one.
"""

from __future__ import annotations

import asyncio
from functools import partial

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.model.providers import (
    PROVIDERS,
    PROVIDERS_BY_ID,
    Provider,
    compatible_models,
    key_secret_name,
    ollama_models,
)
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.secret_store import SecretStore, SecretStoreError
from desktop_app.qt_kit.theme import muted, themed_text
from desktop_app.qt_kit.tokens import Palette


class ModelGroup(QGroupBox):
    """The model the chat uses; `build()` reads it back (and stores a newly typed key)."""

    encrypt_requested = Signal()  # move plaintext secrets into a password-protected file

    def __init__(self, secrets: SecretStore | None, parent: QWidget | None = None) -> None:
        super().__init__("Model", parent)
        self._secrets = secrets
        self._models_task: asyncio.Task[list[str]] | None = None
        self.provider = QComboBox()
        for preset in PROVIDERS:
            self.provider.addItem(preset.label, preset.id)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.api_base = QLineEdit()
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_note = QLabel()
        self.key_note.setWordWrap(True)
        self.models_note = QLabel()
        self.models_note.setObjectName("modelsNote")
        self.models_note.setWordWrap(True)
        muted(self.models_note)
        self.models_note.hide()
        self.clear_key = QPushButton("Forget stored key")
        self.clear_key.clicked.connect(self._forget_key)
        self.encrypt = QPushButton("Protect secrets with a password…")
        self.encrypt.clicked.connect(self.encrypt_requested)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(16, 1_000_000)
        self.max_tokens.setSingleStep(256)
        self.use_temperature = QCheckBox("Set")
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.use_temperature.toggled.connect(self.temperature.setEnabled)

        form = QFormLayout()
        form.addRow("Provider", self.provider)
        form.addRow("Model", self.model)
        form.addRow("API base URL", self.api_base)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.clear_key)
        form.addRow("API key", key_row)
        temperature_row = QHBoxLayout()
        temperature_row.addWidget(self.use_temperature)
        temperature_row.addWidget(self.temperature, 1)
        limits = QFormLayout()
        limits.addRow("Max output tokens", self.max_tokens)
        limits.addRow("Temperature", temperature_row)
        # A word-wrapped label inside a form layout gets spurious height; it sits between two forms.
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.models_note)
        layout.addWidget(self.key_note)
        layout.addWidget(self.encrypt, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addLayout(limits)
        self.provider.currentIndexChanged.connect(self._on_provider)
        self.api_base.editingFinished.connect(self._list_models)

    def load(self, settings: AppSettings) -> None:
        model = settings.model
        preset = PROVIDERS_BY_ID.get(settings.provider) or PROVIDERS_BY_ID["openai"]
        self.provider.setCurrentIndex(self.provider.findData(preset.id))
        self._on_provider()
        if model is not None:
            self.model.setCurrentText(model.model.removeprefix(preset.prefix))
            self.api_base.setText(model.api_base or "")
            self.max_tokens.setValue(model.max_tokens)
            self.use_temperature.setChecked(model.temperature is not None)
            self.temperature.setValue(model.temperature if model.temperature is not None else 0.7)
        else:
            self.max_tokens.setValue(ModelSettings("x").max_tokens)
            self.use_temperature.setChecked(False)
        self.temperature.setEnabled(self.use_temperature.isChecked())
        self._list_models()  # again, now with the saved base URL

    def choose_provider(self, provider_id: str) -> None:
        """Show `provider_id`'s settings, with the keyboard where they need the user first."""
        index = self.provider.findData(provider_id)
        if index >= 0:
            self.provider.setCurrentIndex(index)
        first = self.key if self.key.isEnabled() and self.preset().needs_key else self.model
        first.setFocus()

    def preset(self) -> Provider:
        return PROVIDERS_BY_ID[str(self.provider.currentData())]

    def set_secrets(self, secrets: SecretStore | None) -> None:
        """The store changed (e.g. now encrypted): keys typed from now on go there."""
        self._secrets = secrets
        self._describe_key(self.preset())

    def build(self) -> ModelSettings:
        """The model the group describes; stores a newly typed key. Raises ValueError if incomplete."""
        preset = self.preset()
        name = self.model.currentText().strip()
        if not name:
            raise ValueError("Choose or type a model name.")
        api_base = self.api_base.text().strip() or None
        if preset.needs_api_base and not api_base:
            raise ValueError(f"{preset.label} needs the server's base URL.")
        secret_name: str | None = None
        if self._secrets is not None:
            secret_name = key_secret_name(preset)
            if typed := self.key.text().strip():
                try:
                    self._secrets.set(secret_name, typed)
                except SecretStoreError as exc:
                    raise ValueError(f"The key could not be stored: {exc}") from exc
        return ModelSettings(
            model=name if name.startswith(preset.prefix) else preset.prefix + name,
            api_base=api_base,
            api_key_secret=secret_name,
            max_tokens=self.max_tokens.value(),
            temperature=self.temperature.value() if self.use_temperature.isChecked() else None,
        )

    def _on_provider(self) -> None:
        preset = self.preset()
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(list(preset.suggestions))
        self.model.setCurrentText(current if current and current not in _all_suggestions() else "")
        if preset.suggestions and not self.model.currentText():
            self.model.setCurrentIndex(0)
        self.api_base.setPlaceholderText(preset.default_api_base or "the provider's default")
        if preset.default_api_base and not self.api_base.text():
            self.api_base.setText(preset.default_api_base)
        self._describe_key(preset)
        self._list_models()

    def _describe_key(self, preset: Provider) -> None:
        self.encrypt.setVisible(self._secrets is not None and self._secrets.backend.kind == "plaintext-file")
        self.key.clear()
        self.key.setEnabled(preset.needs_key or preset.id == "compatible")
        if self._secrets is None:
            themed_text(self.key_note, lambda _p: "No secret store is available: the key comes from the environment.")
            self.key.setEnabled(False)
            self.clear_key.setEnabled(False)
            return
        stored = self._secrets.get(key_secret_name(preset)) is not None
        self.clear_key.setEnabled(stored)
        wanted = "optional: local servers need none" if preset.id == "compatible" else "paste the API key"
        self.key.setPlaceholderText("stored — leave empty to keep" if stored else wanted)
        backend = self._secrets.backend
        env = f" Without one, {preset.env_var} from the environment is used." if preset.env_var else ""

        def note(p: Palette) -> str:
            where = f"Kept in: {backend.label}."
            return (where if backend.encrypted else f"<span style='color:{p.danger}'>{where}</span>") + env

        themed_text(self.key_note, note)

    def _list_models(self) -> None:
        """Ask a local server (Ollama, or any OpenAI-compatible one) which models it has, off the loop."""
        preset = self.preset()
        base = self.api_base.text().strip() or preset.default_api_base or ""
        self.models_note.hide()  # whatever it said was about another address or provider
        if self._models_task is not None:
            self._models_task.cancel()  # its answer is about another address or provider
            self._models_task = None
        if preset.id == "ollama":
            work = ollama_models(base)
        elif preset.id == "compatible" and base:
            key = self.key.text().strip() or (self._secrets.get(key_secret_name(preset)) if self._secrets else None)
            work = compatible_models(base, key)
        else:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            work.close()
            return  # no event loop (a test building the dialog bare): nothing to ask
        task = loop.create_task(work)
        self._models_task = task
        task.add_done_callback(partial(self._on_models, preset_id=preset.id))

    def _on_models(self, task: asyncio.Task[list[str]], *, preset_id: str) -> None:
        if task.cancelled() or task is not self._models_task or self.preset().id != preset_id:
            return
        models = task.result()
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(models)
        self.model.setCurrentText(current or (models[0] if models else ""))
        where = "Ollama" if preset_id == "ollama" else "The server"
        self.models_note.setText(f"{where} did not list any models at this address: type the model's name.")
        self.models_note.setVisible(not models)

    def _forget_key(self) -> None:
        if self._secrets is not None:
            self._secrets.delete(key_secret_name(self.preset()))
            self._describe_key(self.preset())


def _all_suggestions() -> set[str]:
    return {name for preset in PROVIDERS for name in preset.suggestions}

"""Settings: provider and model, the API key (into the secret store), limits, and approval rules.

Non-modal (`open()`); saving emits `saved(AppSettings)` and the window applies it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from functools import partial

from mcp.client.auth.utils import is_valid_client_metadata_url
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.asks.service import SamplingGrants
from desktop_app.core.chat.approval import AlwaysAllowRules
from desktop_app.core.model.providers import (
    PROVIDERS,
    PROVIDERS_BY_ID,
    Provider,
    compatible_models,
    key_secret_name,
    ollama_models,
)
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.registry import DEFAULT_REGISTRY_URL
from desktop_app.core.registry.client import RegistryError, normalise_registry_url
from desktop_app.core.secret_store import SecretStore, SecretStoreError
from desktop_app.core.server_config import ServerConfig
from desktop_app.ui.asks.roots_editor import RootsEditor, roots_hint
from desktop_app.ui.style import ERROR_COLOUR, error_label
from desktop_app.ui.unsqueezed_column import UnsqueezedColumn


class SettingsDialog(QDialog):
    saved = Signal(object)  # AppSettings
    encrypt_requested = Signal()  # move plaintext secrets into a password-protected file
    server_rule_revoked = Signal(str)  # server name: stop running its read-only tools without asking

    def __init__(
        self,
        settings: AppSettings,
        secrets: SecretStore | None,
        rules: AlwaysAllowRules | None,
        parent: QWidget | None = None,
        *,
        servers: Mapping[str, ServerConfig] | None = None,
        reason: str | None = None,
        grants: SamplingGrants | None = None,
        managed: PolicyInForce | None = None,
    ) -> None:
        """`reason` says why the dialog opened by itself (e.g. Send with no model chosen); `managed` is the
        organisation's policy (by default the one in force): what it sets is shown read-only."""
        super().__init__(parent)
        self._managed = policy_in_force() if managed is None else managed
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self._secrets = secrets
        self._rules = rules
        self._servers = dict(servers or {})
        self._grants = grants
        self._models_task: asyncio.Task[list[str]] | None = None
        self.reason = QLabel(reason or "")
        self.reason.setObjectName("settingsReason")
        self.reason.setWordWrap(True)
        self.reason.setStyleSheet(
            "#settingsReason { background: rgba(79,108,247,24); border: 1px solid rgba(79,108,247,120);"
            " border-radius: 6px; padding: 6px 8px; }"
        )
        self.reason.setVisible(bool(reason))

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
        self.models_note.setStyleSheet("color: #8a8f98;")
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
        self.pdf_text = QCheckBox("Give the model a PDF's text when it reads one (PyMuPDF)")
        self.images = QCheckBox("Send images to the model as image parts (vision models only)")
        self.max_iterations = QSpinBox()
        self.max_iterations.setRange(1, 200)
        self.registry = QLineEdit()
        self.registry.setPlaceholderText(DEFAULT_REGISTRY_URL)
        self.registry.setToolTip("The MCP Registry that Find servers… searches (your organisation's own, maybe)")
        self.client_document = QLineEdit()
        self.client_document.setObjectName("clientMetadataUrl")
        self.client_document.setPlaceholderText("optional: https://… your Client ID Metadata Document")
        self.client_document.setToolTip(
            "Where you host MCP Desk's OAuth client metadata. Servers that accept such documents then sign you in\n"
            'with it instead of registering MCP Desk anew; a server\'s own "clientMetadataUrl" wins.'
        )

        model_box = QGroupBox("Model")
        model_form = QFormLayout()
        model_form.addRow("Provider", self.provider)
        model_form.addRow("Model", self.model)
        model_form.addRow("API base URL", self.api_base)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.clear_key)
        model_form.addRow("API key", key_row)
        temperature_row = QHBoxLayout()
        temperature_row.addWidget(self.use_temperature)
        temperature_row.addWidget(self.temperature, 1)
        limits_form = QFormLayout()
        limits_form.addRow("Max output tokens", self.max_tokens)
        limits_form.addRow("Temperature", temperature_row)
        # A word-wrapped label inside a form layout gets spurious height; it sits between two forms.
        model_layout = QVBoxLayout(model_box)
        model_layout.addLayout(model_form)
        model_layout.addWidget(self.models_note)
        model_layout.addWidget(self.key_note)
        model_layout.addWidget(self.encrypt, 0, Qt.AlignmentFlag.AlignLeft)
        model_layout.addLayout(limits_form)

        look_box = QGroupBox("Appearance")
        self.theme = QComboBox()
        self.theme.setObjectName("themeChoice")
        for theme, label in (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")):
            self.theme.addItem(label, theme)
        look_form = QFormLayout(look_box)
        look_form.addRow("Theme", self.theme)

        chat_box = QGroupBox("Conversation")
        chat_form = QFormLayout(chat_box)
        chat_form.addRow("PDFs", self.pdf_text)
        chat_form.addRow("Images", self.images)
        chat_form.addRow("Max tool rounds per answer", self.max_iterations)
        self.registry_fixed = self._managed.fixed("registry")
        if self.registry_fixed is None:
            chat_form.addRow("Server registry", self.registry)
        else:
            self.registry.setReadOnly(True)
            self.registry.setEnabled(False)
            self.registry.setToolTip(self.registry_fixed[:1].upper() + self.registry_fixed[1:])
            fixed_note = QLabel("set by your organisation")
            fixed_note.setObjectName("registryFixed")
            fixed_note.setStyleSheet("color: #8a8f98;")
            fixed_note.setToolTip(self.registry.toolTip())
            registry_row = QHBoxLayout()
            registry_row.addWidget(self.registry, 1)
            registry_row.addWidget(fixed_note)
            chat_form.addRow("Server registry", registry_row)
        chat_form.addRow("Sign-in client document", self.client_document)

        roots_box = QGroupBox("Default roots")
        self.roots = RootsEditor()
        roots_layout = QVBoxLayout(roots_box)
        roots_layout.addWidget(roots_hint())
        roots_layout.addWidget(self.roots)

        rules_box = QGroupBox("Approval rules")
        self.rules_list = QListWidget()
        self.rules_list.setMaximumHeight(120)
        self.revoke = QPushButton("Revoke")
        self.revoke.clicked.connect(self._revoke)
        self.rules_list.currentItemChanged.connect(lambda item, _old: self.revoke.setEnabled(item is not None))
        rules_note = QLabel(
            "Calls these rules cover run without asking. While untrusted content is in a chat, the rules"
            " pause there for tools that are not read-only. Trust a server in its editor (Servers panel)."
        )
        rules_note.setWordWrap(True)
        rules_note.setStyleSheet("color: #8a8f98;")
        paused = self._managed.every_call() or self._managed.feature_refusal("alwaysAllow")
        if paused is not None:  # the rules stay (revocable) but do not apply: say so where they are listed
            rules_note.setText(f"These rules are not applied now: {paused}. {rules_note.text()}")
        rules_layout = QVBoxLayout(rules_box)
        rules_layout.addWidget(self.rules_list)
        rules_layout.addWidget(rules_note)
        rules_layout.addWidget(self.revoke, 0, Qt.AlignmentFlag.AlignLeft)

        self.error = error_label()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        self.sections = UnsqueezedColumn(model_box, look_box, chat_box, roots_box, rules_box)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroller.setWidget(self.sections)
        self.scroller.setMinimumWidth(
            self.sections.minimumSizeHint().width() + self.scroller.verticalScrollBar().sizeHint().width()
        )
        layout = QVBoxLayout(self)
        layout.addWidget(self.reason)
        layout.addWidget(self.scroller, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

        self.provider.currentIndexChanged.connect(self._on_provider)
        self.api_base.editingFinished.connect(self._list_models)
        self._load(settings)
        self._fit_height()

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # a note, a reason or a row appeared or went
            self._fit_height()
        return handled

    def _fit_height(self) -> None:
        """Grow to show every section whole, within the screen; beyond that the sections scroll."""
        layout = self.layout()
        if layout is None:
            return
        around = layout.sizeHint().height() - self.scroller.sizeHint().height()
        wanted = min(around + self.sections.sizeHint().height(), self.screen().availableGeometry().height() - 60)
        if self.height() < wanted:
            self.resize(self.width(), wanted)

    # -- loading ---------------------------------------------------------------------------

    def _load(self, settings: AppSettings) -> None:
        model = settings.model
        preset = PROVIDERS_BY_ID.get(settings.provider) or PROVIDERS_BY_ID["openai"]
        self.provider.setCurrentIndex(self.provider.findData(preset.id))
        self._on_provider()
        if model is not None:
            name = model.model.removeprefix(preset.prefix)
            self.model.setCurrentText(name)
            self.api_base.setText(model.api_base or "")
            self.max_tokens.setValue(model.max_tokens)
            self.use_temperature.setChecked(model.temperature is not None)
            self.temperature.setValue(model.temperature if model.temperature is not None else 0.7)
        else:
            self.max_tokens.setValue(ModelSettings("x").max_tokens)
            self.use_temperature.setChecked(False)
        self.temperature.setEnabled(self.use_temperature.isChecked())
        self.pdf_text.setChecked(settings.chat.pdf_text)
        self.images.setChecked(settings.chat.images_to_model)
        self.max_iterations.setValue(settings.chat.max_iterations)
        self._saved_registry = settings.registry_url
        self.registry.setText("" if settings.registry_url == DEFAULT_REGISTRY_URL else settings.registry_url)
        if self.registry_fixed is not None:
            self.registry.setText(self._managed.registry_url(settings.registry_url))
        self.client_document.setText(settings.client_metadata_url)
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        self._chat = settings.chat
        self.roots.set_entries(settings.roots)
        self._fill_rules()
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

    def _on_provider(self) -> None:
        preset = self.preset()
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(list(preset.suggestions))
        self.model.setCurrentText(current if current and current not in self._all_suggestions() else "")
        if preset.suggestions and not self.model.currentText():
            self.model.setCurrentIndex(0)
        self.api_base.setPlaceholderText(preset.default_api_base or "the provider's default")
        if preset.default_api_base and not self.api_base.text():
            self.api_base.setText(preset.default_api_base)
        self._describe_key(preset)
        self._list_models()

    @staticmethod
    def _all_suggestions() -> set[str]:
        return {name for preset in PROVIDERS for name in preset.suggestions}

    def set_secrets(self, secrets: SecretStore | None) -> None:
        """The store changed (e.g. now encrypted): keys typed from now on go there."""
        self._secrets = secrets
        self._describe_key(self.preset())

    def _describe_key(self, preset: Provider) -> None:
        self.encrypt.setVisible(self._secrets is not None and self._secrets.backend.kind == "plaintext-file")
        self.key.clear()
        self.key.setEnabled(preset.needs_key or preset.id == "compatible")
        if self._secrets is None:
            self.key_note.setText("No secret store is available: the key comes from the environment.")
            self.key.setEnabled(False)
            self.clear_key.setEnabled(False)
            return
        stored = self._secrets.get(key_secret_name(preset)) is not None
        self.clear_key.setEnabled(stored)
        wanted = "optional: local servers need none" if preset.id == "compatible" else "paste the API key"
        self.key.setPlaceholderText("stored — leave empty to keep" if stored else wanted)
        backend = self._secrets.backend
        where = f"Kept in: {backend.label}."
        if not backend.encrypted:
            where = f"<span style='color:{ERROR_COLOUR}'>Kept in: {backend.label}.</span>"
        env = f" Without one, {preset.env_var} from the environment is used." if preset.env_var else ""
        self.key_note.setText(where + env)

    def _list_models(self) -> None:
        """Ask a local server (Ollama, or any OpenAI-compatible one) which models it has, off the loop."""
        preset = self.preset()
        base = self.api_base.text().strip() or preset.default_api_base or ""
        self.models_note.hide()  # whatever it said was about another address or provider
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
        if self._models_task is not None:
            self._models_task.cancel()
        self._models_task = loop.create_task(work)
        self._models_task.add_done_callback(partial(self._on_models, preset_id=preset.id))

    def _on_models(self, task: asyncio.Task[list[str]], *, preset_id: str) -> None:
        if task.cancelled() or self.preset().id != preset_id:
            return
        models = task.result()
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(models)
        self.model.setCurrentText(current or (models[0] if models else ""))
        where = "Ollama" if preset_id == "ollama" else "The server"
        self.models_note.setText(f"{where} did not list any models at this address: type the model's name.")
        self.models_note.setVisible(not models)

    def _fill_rules(self) -> None:
        """Every rule: always-allow per tool, then each trusted server whose read-only tools run unasked."""
        self.rules_list.clear()
        for server, tool in self._rules.rules() if self._rules else []:
            item = QListWidgetItem(f"Always allow {tool} on {server}")
            item.setData(Qt.ItemDataRole.UserRole, ("tool", server, tool))
            self.rules_list.addItem(item)
        for name, config in sorted(self._servers.items()):
            if not config.auto_approve_read_only:
                continue
            paused = "" if config.trusted else " (inactive: the server is not trusted)"
            item = QListWidgetItem(f"Run read-only tools of {name} without asking{paused}")
            item.setData(Qt.ItemDataRole.UserRole, ("server", name, ""))
            self.rules_list.addItem(item)
        for server in self._grants.always() if self._grants else []:
            item = QListWidgetItem(f"Let {server} use your model (sampling) without asking")
            item.setData(Qt.ItemDataRole.UserRole, ("sampling", server, ""))
            self.rules_list.addItem(item)
        if self.rules_list.count() == 0:
            empty = QListWidgetItem("No rules yet: every tool call asks you.")
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.rules_list.addItem(empty)
        self.revoke.setEnabled(False)

    def _revoke(self) -> None:
        item = self.rules_list.currentItem()
        if item is None or not item.data(Qt.ItemDataRole.UserRole):
            return
        kind, server, tool = item.data(Qt.ItemDataRole.UserRole)
        if kind == "tool" and self._rules is not None:
            self._rules.revoke(server, tool)
        elif kind == "sampling" and self._grants is not None:
            self._grants.revoke(server)
        elif kind == "server" and server in self._servers:
            self._servers[server] = replace(self._servers[server], auto_approve_read_only=False)
            self.server_rule_revoked.emit(server)
        self._fill_rules()

    def _forget_key(self) -> None:
        if self._secrets is not None:
            self._secrets.delete(key_secret_name(self.preset()))
            self._describe_key(self.preset())

    # -- saving ----------------------------------------------------------------------------

    def build(self) -> AppSettings:
        """The settings the form describes; stores a newly typed key. Raises ValueError if incomplete."""
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
        model = ModelSettings(
            model=name if name.startswith(preset.prefix) else preset.prefix + name,
            api_base=api_base,
            api_key_secret=secret_name,
            max_tokens=self.max_tokens.value(),
            temperature=self.temperature.value() if self.use_temperature.isChecked() else None,
        )
        chat = replace(
            self._chat,
            max_iterations=self.max_iterations.value(),
            pdf_text=self.pdf_text.isChecked(),
            images_to_model=self.images.isChecked(),
        )
        try:
            # A registry the policy fixes is shown, not saved: the user's own choice is kept for later.
            shown = self._saved_registry if self.registry_fixed is not None else self.registry.text()
            registry = normalise_registry_url(shown)
        except RegistryError as exc:
            raise ValueError(f"Server registry: {exc}") from None
        document = self.client_document.text().strip()
        if document and not is_valid_client_metadata_url(document):
            raise ValueError("Sign-in client document: give an https:// URL with a path, where the document is served.")
        if (problem := self.roots.first_problem()) is not None:
            raise ValueError(problem)
        theme = str(self.theme.currentData())
        return AppSettings(model, chat, preset.id, registry, document, self.roots.entries(), theme)

    def _save(self) -> None:
        try:
            settings = self.build()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.saved.emit(settings)
        self.accept()

"""Settings: the model (`settings_model`), appearance, the conversation, organisation sign-in
(`settings_sign_in`), default roots and approval rules (`settings_rules`).

Non-modal (`open()`). Apply emits `saved(AppSettings)` and the window uses them at once; Save does
the same and closes. Apply is enabled only while the form differs from what is in use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from mcp.client.auth.utils import is_valid_client_metadata_url
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.asks.service import SamplingGrants
from desktop_app.core.chat.approval import AlwaysAllowRules
from desktop_app.core.model.providers import Provider
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.registry import DEFAULT_REGISTRY_URL
from desktop_app.core.registry.client import RegistryError, normalise_registry_url
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_config import ServerConfig
from desktop_app.qt_kit.theme import muted, themed
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.asks.roots_editor import RootsEditor, roots_hint
from desktop_app.ui.settings.settings_model import ModelGroup
from desktop_app.ui.settings.settings_rules import ApprovalRules
from desktop_app.ui.settings.settings_sign_in import OrganisationSignIn
from desktop_app.ui.widgets.form_columns import align_form_labels
from desktop_app.ui.widgets.style import error_label
from desktop_app.ui.widgets.unsqueezed_column import UnsqueezedColumn

SCREEN_SHARE: Final = 0.85
"""The dialog grows to fit its sections, up to this share of the screen's height; then they scroll."""


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
        self.reason = QLabel(reason or "")
        self.reason.setObjectName("settingsReason")
        self.reason.setWordWrap(True)
        themed(
            self.reason,
            lambda p: (
                f"#settingsReason {{ background: {p.raised}; color: {p.text}; border: 1px solid {p.accent};"
                f" border-radius: {SPACE.radius - 2}px; padding: {SPACE.s + 2}px {SPACE.m}px; }}"
            ),
        )
        self.reason.setVisible(bool(reason))

        self.model_box = ModelGroup(secrets)
        self.model_box.encrypt_requested.connect(self.encrypt_requested)
        # The fields the window and its tests reach by name.
        self.provider, self.model, self.key = self.model_box.provider, self.model_box.model, self.model_box.key
        self.encrypt = self.model_box.encrypt
        self.sign_in = OrganisationSignIn(secrets, self._managed)
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
            muted(fixed_note)
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

        self.rules_box = ApprovalRules(rules, servers or {}, grants, self._managed)
        self.rules_box.server_rule_revoked.connect(self.server_rule_revoked)
        self.rules_list, self.revoke = self.rules_box.rules_list, self.rules_box.revoke

        self.error = error_label()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save
            | QDialogButtonBox.StandardButton.Apply
            | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        self.apply = buttons.button(QDialogButtonBox.StandardButton.Apply)
        self.apply.setToolTip("Use these settings now and keep the window open")
        self.apply.clicked.connect(self._apply)
        self.sections = UnsqueezedColumn(self.model_box, look_box, chat_box, self.sign_in, roots_box, self.rules_box)
        align_form_labels(self.sections)  # the groups' fields start at one x
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

        self._load(settings)
        self._watch_changes()
        self._fit_height()

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # a note, a reason or a row appeared or went
            self._fit_height()
        return handled

    def tallest(self) -> int:
        """The height the dialog grows to at most: a share of the screen's."""
        return int(self.screen().availableGeometry().height() * SCREEN_SHARE)

    def _fit_height(self) -> None:
        """Grow to show every section whole, up to `SCREEN_SHARE` of the screen's height; beyond that the
        sections scroll (a dialog as tall as the screen hides the window it belongs to)."""
        layout = self.layout()
        if layout is None:
            return
        around = layout.sizeHint().height() - self.scroller.sizeHint().height()
        wanted = min(around + self.sections.sizeHint().height(), self.tallest())
        if self.height() < wanted:
            self.resize(self.width(), wanted)

    # -- loading ---------------------------------------------------------------------------

    def _load(self, settings: AppSettings) -> None:
        self._in_use = settings
        self.model_box.load(settings)
        self.pdf_text.setChecked(settings.chat.pdf_text)
        self.images.setChecked(settings.chat.images_to_model)
        self.max_iterations.setValue(settings.chat.max_iterations)
        self.registry.setText("" if settings.registry_url == DEFAULT_REGISTRY_URL else settings.registry_url)
        if self.registry_fixed is not None:
            self.registry.setText(self._managed.registry_url(settings.registry_url))
        self.client_document.setText(settings.client_metadata_url)
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        self.sign_in.load(settings.identity_provider)
        self.roots.set_entries(settings.roots)
        self.rules_box.fill()

    def choose_provider(self, provider_id: str) -> None:
        """Show `provider_id`'s settings, with the keyboard where they need the user first."""
        self.model_box.choose_provider(provider_id)

    def preset(self) -> Provider:
        return self.model_box.preset()

    def set_secrets(self, secrets: SecretStore | None) -> None:
        """The store changed (e.g. now encrypted): secrets typed from now on go there."""
        self._secrets = secrets
        self.model_box.set_secrets(secrets)
        self.sign_in.set_secrets(secrets)

    # -- what changed ----------------------------------------------------------------------

    def _fields(self) -> tuple[object, ...]:
        """What the form shows, field by field: Apply is enabled while it differs from what is in use."""
        values: list[object] = []
        for widget in self.sections.findChildren(QWidget):
            if isinstance(widget, QLineEdit):
                values.append(widget.text())
            elif isinstance(widget, QComboBox):
                values.append(widget.currentData() if not widget.isEditable() else widget.currentText())
            elif isinstance(widget, QAbstractSpinBox):
                values.append(widget.text())
            elif isinstance(widget, QCheckBox):
                values.append(widget.isChecked())
        return (*values, self.roots.entries())

    def _watch_changes(self) -> None:
        for widget in self.sections.findChildren(QWidget):
            if isinstance(widget, QLineEdit):
                widget.textChanged.connect(self._on_changed)
            elif isinstance(widget, QComboBox):
                widget.currentTextChanged.connect(self._on_changed)
            elif isinstance(widget, QAbstractButton) and widget.isCheckable():
                widget.toggled.connect(self._on_changed)
        roots = self.roots.list.model()
        for signal in (roots.rowsInserted, roots.rowsRemoved, roots.dataChanged):
            signal.connect(self._on_changed)
        self._applied = self._fields()
        self.apply.setEnabled(False)

    def _on_changed(self, *_: object) -> None:
        self.apply.setEnabled(self._fields() != self._applied)

    # -- saving ----------------------------------------------------------------------------

    def build(self) -> AppSettings:
        """The settings the form describes; stores newly typed secrets. Raises ValueError if incomplete."""
        model = self.model_box.build()
        chat = replace(
            self._in_use.chat,
            max_iterations=self.max_iterations.value(),
            pdf_text=self.pdf_text.isChecked(),
            images_to_model=self.images.isChecked(),
        )
        try:
            # A registry the policy fixes is shown, not saved: the user's own choice is kept for later.
            shown = self._in_use.registry_url if self.registry_fixed is not None else self.registry.text()
            registry = normalise_registry_url(shown)
        except RegistryError as exc:
            raise ValueError(f"Server registry: {exc}") from None
        document = self.client_document.text().strip()
        if document and not is_valid_client_metadata_url(document):
            raise ValueError("Sign-in client document: give an https:// URL with a path, where the document is served.")
        if (problem := self.roots.first_problem()) is not None:
            raise ValueError(problem)
        identity_provider = self.sign_in.build(self._in_use.identity_provider)
        return AppSettings(
            model,
            chat,
            self.preset().id,
            registry,
            document,
            self.roots.entries(),
            str(self.theme.currentData()),
            identity_provider,
        )

    def _apply(self) -> bool:
        """Use what the form says now; False (and the reason shown) when it cannot be used."""
        try:
            settings = self.build()
        except ValueError as exc:
            self.error.setText(str(exc))
            return False
        self.error.clear()
        self._in_use = settings
        self.saved.emit(settings)
        self._applied = self._fields()  # a typed secret is stored and its field emptied: that is in use now
        self.apply.setEnabled(False)
        return True

    def _save(self) -> None:
        if self._apply():
            self.accept()

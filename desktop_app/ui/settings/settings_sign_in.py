"""Settings' Organisation sign-in group: the company's identity provider for enterprise sign-in (SEP-990).

Servers set up with `"grant": "enterprise"` sign in through this identity provider. Its client
secret, when it has one, goes to the secret store and settings.json keeps only its name. When the
organisation's policy sets the identity provider, the group shows the policy's and cannot be edited.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLineEdit, QVBoxLayout, QWidget

from desktop_app.core.app_settings import IDP_SECRET, IDP_SECRET_NAME
from desktop_app.core.auth.idp import DEFAULT_SCOPES, IdentityProviderSettings
from desktop_app.core.policy.in_force import PolicyInForce
from desktop_app.core.secret_store import SecretStore, SecretStoreError
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.widgets.plain_text import plain_label

HINT = (
    'Servers set up with "grant": "enterprise" sign you in through your organisation\'s identity provider,'
    " once for all of them. Leave the issuer empty if your organisation does not use it."
)


class OrganisationSignIn(QGroupBox):
    """Issuer, MCP Desk's client ID there, an optional client secret and the scopes; `build()` reads them."""

    def __init__(self, secrets: SecretStore | None, managed: PolicyInForce, parent: QWidget | None = None) -> None:
        super().__init__("Organisation sign-in", parent)
        self.setObjectName("organisationSignIn")
        self._secrets = secrets
        self._managed = managed
        self._stored = False
        """A client secret is in the store for the identity provider shown."""
        self.fixed = managed.fixed("identityProvider")
        """Why the policy's identity provider is shown instead of the user's (None: the user's is)."""
        self.issuer = QLineEdit()
        self.issuer.setObjectName("idpIssuer")
        self.issuer.setPlaceholderText("https://login.example.com")
        self.client_id = QLineEdit()
        self.client_id.setObjectName("idpClientId")
        self.client_id.setPlaceholderText("MCP Desk's client ID at the identity provider")
        self.client_secret = QLineEdit()
        self.client_secret.setObjectName("idpClientSecret")
        self.client_secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.scopes = QLineEdit()
        self.scopes.setObjectName("idpScopes")
        self.scopes.setPlaceholderText(" ".join(DEFAULT_SCOPES))
        self.note = plain_label(HINT if self.fixed is None else _fixed_note(managed))
        self.note.setObjectName("idpNote")
        self.note.setWordWrap(True)
        muted(self.note)
        form = QFormLayout()
        form.addRow("Issuer", self.issuer)
        form.addRow("Client ID", self.client_id)
        form.addRow("Client secret", self.client_secret)
        form.addRow("Scopes", self.scopes)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addLayout(form)
        if self.fixed is not None:
            for field in (self.issuer, self.client_id, self.client_secret, self.scopes):
                field.setReadOnly(True)
                field.setEnabled(False)
                field.setToolTip(self.fixed[:1].upper() + self.fixed[1:])

    def load(self, idp: IdentityProviderSettings | None) -> None:
        """Show the user's identity provider, or the policy's when it sets one."""
        if self.fixed is not None and self._managed.identity_provider is not None:
            try:
                idp = IdentityProviderSettings.from_mapping(self._managed.identity_provider, source="policy")
            except ValueError:
                idp = None
        self.issuer.setText(idp.issuer if idp else "")
        self.client_id.setText(idp.client_id if idp else "")
        self.scopes.setText(" ".join(idp.scopes) if idp and idp.scopes != DEFAULT_SCOPES else "")
        self.client_secret.clear()
        self._stored = idp is not None and idp.client_secret is not None
        self._describe_secret()

    def _describe_secret(self) -> None:
        if self.fixed is not None:
            self.client_secret.setPlaceholderText("set by your organisation" if self._stored else "none")
        elif self._secrets is None:
            self.client_secret.setPlaceholderText("no secret store is open: cannot keep one")
        elif self._stored:
            self.client_secret.setPlaceholderText("stored — leave empty to keep, or clear the issuer")
        else:
            self.client_secret.setPlaceholderText("optional: only for a confidential client")
        self.client_secret.setEnabled(self.fixed is None and self._secrets is not None)

    def set_secrets(self, secrets: SecretStore | None) -> None:
        self._secrets = secrets
        self._describe_secret()

    def build(self, saved: IdentityProviderSettings | None) -> IdentityProviderSettings | None:
        """The identity provider the group describes (None: none); a typed secret goes to the store.

        Under a policy the user's own setting (`saved`) is kept as it was, for when the policy goes.
        Raises ValueError with a sentence for the user.
        """
        if self.fixed is not None:
            return saved
        issuer = self.issuer.text().strip()
        client_id = self.client_id.text().strip()
        typed = self.client_secret.text().strip()
        if not issuer and not client_id and not typed:
            if self._stored and self._secrets is not None:
                self._secrets.delete(IDP_SECRET_NAME)  # no identity provider: its secret goes too
                self._stored = False
                self._describe_secret()
            return None
        document: dict[str, object] = {"issuer": issuer, "clientId": client_id}
        if scopes := self.scopes.text().split():
            document["scopes"] = scopes
        if typed or self._stored:
            document["clientSecret"] = IDP_SECRET
        try:
            idp = IdentityProviderSettings.from_mapping(document)
        except ValueError as exc:
            raise ValueError(f"Organisation sign-in: {exc}.") from None
        if typed and self._secrets is not None:
            try:
                self._secrets.set(IDP_SECRET_NAME, typed)
            except SecretStoreError as exc:
                raise ValueError(f"Organisation sign-in: the client secret could not be stored: {exc}") from exc
            self._stored = True
            self.client_secret.clear()
            self._describe_secret()
        return idp


def _fixed_note(managed: PolicyInForce) -> str:
    """Which policy file sets the identity provider, and under which rule."""
    where = f" ({managed.source})" if managed.source is not None else ""
    return (
        f"Your organisation's policy{where} sets the identity provider (its identityProvider rule): "
        "it cannot be changed here."
    )

"""The user's model and chat settings, kept as `settings.json` beside `servers.json`.

Only names of secrets are stored here (the API key and the identity provider's client secret
live in the secret store; the file keeps `${secret:NAME}`). A damaged file falls back to defaults
with the problem reported, and is never overwritten silently: the next save replaces it, keeping
the old text as `settings.json.bak`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Final

from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.auth.idp import SETTINGS_KEY, IdentityProviderSettings, identity_provider_setting
from desktop_app.core.expansion import secret_placeholder
from desktop_app.core.model.settings import ChatOptions, ModelSettings
from desktop_app.core.paths import SETTINGS_FILENAME, config_dir
from desktop_app.core.registry import DEFAULT_REGISTRY_URL

THEMES: Final = ("system", "light", "dark")
IDP_SECRET_NAME: Final = "IDENTITY_PROVIDER_CLIENT_SECRET"
"""The secret store's name for the organisation's identity provider's client secret, when it has one."""
IDP_SECRET: Final = secret_placeholder(IDP_SECRET_NAME)


def default_settings_path() -> Path:
    return config_dir() / SETTINGS_FILENAME


@dataclass(frozen=True)
class AppSettings:
    """`model` is None until the user picks one (the first send then opens the settings)."""

    model: ModelSettings | None = None
    chat: ChatOptions = field(default_factory=ChatOptions)
    provider: str = ""
    """The settings page's provider preset, remembered so the page reopens as it was left."""
    registry_url: str = DEFAULT_REGISTRY_URL
    """The MCP Registry the gallery and `mcp-desk search/install` read (an organisation's own, maybe)."""
    client_metadata_url: str = ""
    """MCP Desk's Client ID Metadata Document URL for sign-in, when the user hosts one (empty: none)."""
    roots: tuple[str, ...] = ()
    """Default roots: folders offered to servers that list none of their own."""
    theme: str = "system"
    """The window's colours: the system's, or always light, or always dark (`THEMES`)."""
    identity_provider: IdentityProviderSettings | None = None
    """The organisation's identity provider for enterprise sign-in (a managed policy's wins over it);
    its client secret, when set, is always `IDP_SECRET`: the value stays in the secret store."""


@dataclass(frozen=True)
class SettingsLoad:
    settings: AppSettings
    error: str | None = None


def _known(cls: type[Any], data: object) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names} if isinstance(data, dict) else {}


def load_settings(path: Path) -> SettingsLoad:
    """Read the settings; any problem gives defaults plus a one-line explanation."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return SettingsLoad(AppSettings())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return SettingsLoad(AppSettings(), f"{path.name} could not be read ({exc}); using defaults")
    if not isinstance(data, dict):
        return SettingsLoad(AppSettings(), f"{path.name} does not hold a JSON object; using defaults")
    try:
        model_data = data.get("model")
        model = ModelSettings(**_known(ModelSettings, model_data)) if model_data else None
        chat = ChatOptions(**_known(ChatOptions, data.get("chat")))
    except (TypeError, ValueError) as exc:
        return SettingsLoad(AppSettings(), f"{path.name} has an invalid value ({exc}); using defaults")
    provider = data.get("provider")
    registry = data.get("registry_url")
    cimd = data.get("client_metadata_url")
    roots = data.get("roots", [])
    theme = data.get("theme")
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        return SettingsLoad(AppSettings(), f"{path.name} has roots that are not a list of folders; using defaults")
    settings = AppSettings(
        model,
        chat,
        provider if isinstance(provider, str) else "",
        registry if isinstance(registry, str) and registry.strip() else DEFAULT_REGISTRY_URL,
        cimd if isinstance(cimd, str) else "",
        tuple(roots),
        theme if theme in THEMES else "system",
    )
    try:
        idp = checked_identity_provider(identity_provider_setting(data))
    except ValueError as exc:  # the rest stays usable; only the sign-in setting is left out
        return SettingsLoad(settings, f"{path.name}: {SETTINGS_KEY} is not used ({exc})")
    return SettingsLoad(replace(settings, identity_provider=idp))


def checked_identity_provider(idp: IdentityProviderSettings | None) -> IdentityProviderSettings | None:
    """`idp` when its client secret is only named (`IDP_SECRET`), never written out; ValueError otherwise."""
    if idp is not None and idp.client_secret not in (None, IDP_SECRET):
        raise ValueError(f"its client secret belongs in the secret store: write {IDP_SECRET} in its place")
    return idp


def save_settings(path: Path, settings: AppSettings) -> None:
    """Atomic write with a backup of the previous file."""
    document: dict[str, object] = {
        "provider": settings.provider,
        "model": asdict(settings.model) if settings.model else None,
        "chat": asdict(settings.chat),
        "registry_url": settings.registry_url,
        "client_metadata_url": settings.client_metadata_url,
        "roots": list(settings.roots),
        "theme": settings.theme,
    }
    if (idp := checked_identity_provider(settings.identity_provider)) is not None:
        document[SETTINGS_KEY] = idp.to_mapping()
    if path.exists():
        atomic_write(path.with_name(path.name + ".bak"), path.read_text(encoding="utf-8", errors="replace"))
    atomic_write(path, json.dumps(document, indent=2) + "\n")

"""Model and chat settings survive a round trip; a damaged file falls back to defaults, clearly."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.app_settings import IDP_SECRET, AppSettings, load_settings, save_settings
from desktop_app.core.auth.idp import IdentityProviderSettings
from desktop_app.core.model.settings import ChatOptions, ModelSettings


def test_round_trip_keeps_everything_but_secrets(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "settings.json"
    settings = AppSettings(
        ModelSettings("anthropic/claude-sonnet-4-5", api_key_secret="LLM_ANTHROPIC", max_tokens=2048, temperature=0.2),
        ChatOptions(pdf_text=True, max_iterations=7),
        provider="anthropic",
        registry_url="https://registry.example.org",
        client_metadata_url="https://desk.example/oauth/client.json",
    )
    save_settings(path, settings)
    assert load_settings(path).settings == settings
    assert "LLM_ANTHROPIC" in path.read_text()
    save_settings(path, AppSettings())
    assert (tmp_path / "conf" / "settings.json.bak").exists()
    assert load_settings(path).settings.model is None


def test_missing_and_damaged_files(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "none.json").settings == AppSettings()
    broken = tmp_path / "settings.json"
    broken.write_text("{oops")
    loaded = load_settings(broken)
    assert loaded.settings == AppSettings() and loaded.error and "settings.json" in loaded.error
    broken.write_text(json.dumps({"model": {"model": "x", "max_tokens": -1}}))
    loaded = load_settings(broken)
    assert loaded.settings.model is None and loaded.error and "max_tokens" in loaded.error
    broken.write_text(json.dumps({"model": {"model": "openai/gpt-4o", "unknown": 1}, "chat": {"pdf_text": True}}))
    loaded = load_settings(broken)
    assert loaded.error is None
    assert loaded.settings.model == ModelSettings("openai/gpt-4o") and loaded.settings.chat.pdf_text


def test_the_identity_provider_round_trips_and_its_secret_is_only_named(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    idp = IdentityProviderSettings("https://login.acme.example", "mcp-desk", IDP_SECRET, ("openid", "email", "groups"))
    save_settings(path, AppSettings(identity_provider=idp))
    assert load_settings(path).settings.identity_provider == idp
    assert json.loads(path.read_text())["identity_provider"] == {
        "issuer": "https://login.acme.example",
        "clientId": "mcp-desk",
        "clientSecret": "${secret:IDENTITY_PROVIDER_CLIENT_SECRET}",
        "scopes": ["openid", "email", "groups"],
    }
    with pytest.raises(ValueError, match="secret store"):
        save_settings(path, AppSettings(identity_provider=replace(idp, client_secret="s3cret")))
    assert "s3cret" not in path.read_text()

    # A hand-edited file: a bad identity provider is left out and said why; the rest is kept.
    for bad, words in (
        ({"issuer": "http://login.acme.example", "clientId": "x"}, "https://"),
        ({"issuer": "https://login.acme.example", "clientId": "x", "clientSecret": "plain"}, "secret store"),
    ):
        path.write_text(json.dumps({"theme": "dark", "identity_provider": bad}))
        loaded = load_settings(path)
        assert loaded.settings.identity_provider is None and loaded.settings.theme == "dark"
        assert loaded.error is not None and "identity_provider is not used" in loaded.error and words in loaded.error

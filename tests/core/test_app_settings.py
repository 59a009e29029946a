"""Model and chat settings survive a round trip; a damaged file falls back to defaults, clearly."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.core.app_settings import AppSettings, load_settings, save_settings
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

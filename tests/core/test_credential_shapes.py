"""What counts as a credential by its name or its shape: credentials are caught, ordinary settings are not."""

from __future__ import annotations

import pytest

from desktop_app.core.log_redaction import is_credential_name, looks_like_credential


@pytest.mark.parametrize(
    "name",
    [
        *("GITHUB_TOKEN", "API_KEY", "apiKey", "X-Api-Key", "Authorization", "Cookie", "DB_PASSWORD", "DB_PASS"),
        *("AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "X-Auth-Token", "CLIENT_SECRET"),
    ],
)
def test_names_that_say_credential(name: str) -> None:
    assert is_credential_name(name)


@pytest.mark.parametrize(
    "name", ["MODE", "AUTH_MODE", "TOKEN_URL", "PASSWORD_FILE", "GIT_AUTHOR_NAME", "SSH_AUTH_SOCK", "PWD", "KEYBOARD"]
)
def test_names_that_do_not(name: str) -> None:
    assert not is_credential_name(name)


@pytest.mark.parametrize(
    "value",
    [
        "ghp_" + "a1B2c3D4e5" * 4,
        "sk-proj-9f8e7d6c5b4a39281706f5e4",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl",
        "AKIAIOSFODNN7EXAMPLE",
        "0f9e8d7c6b5a49382716f5e4d3c2b1a0",
        "b81ba8f4-69ca-4af7-87fb-e7ab0eb02452",
        "Bearer abc",
    ],
)
def test_values_shaped_like_credentials(value: str) -> None:
    assert looks_like_credential(value)


@pytest.mark.parametrize(
    "value",
    [
        *("deleted", "production", "eu-west-2-prod-cluster", "2024-01-01T00:00:00Z", "/home/ada/project2024abc"),
        *("https://api.example.com/v1/abc123def456", "my-server-v1.2.3-beta4", "hunter2-database-password"),
    ],
)
def test_ordinary_values(value: str) -> None:
    assert not looks_like_credential(value)

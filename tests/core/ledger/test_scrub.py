"""Secrets never reach a trace: known values, credential shapes and credential-named fields are hidden."""

from __future__ import annotations

from urllib.parse import quote

from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.log_redaction import remember_secrets

KEY = "sk-proj-9f8e7d6c5b4a39281706f5e4"
ENV_VALUE = "hunter2-database-password"


def test_known_values_and_their_url_encoded_forms_are_hidden() -> None:
    scrubber = Scrubber([ENV_VALUE, "p@ss word/+="])
    text = f"env said {ENV_VALUE}; url ?q={quote('p@ss word/+=', safe='')} and raw p@ss word/+="
    assert scrubber.text(text) == "env said ***; url ?q=*** and raw ***"


def test_values_the_app_resolved_elsewhere_are_hidden_too() -> None:
    remember_secrets(["resolved-from-the-keyring-1234"])  # what expansion and the API key lookup do
    assert Scrubber().text("token=resolved-from-the-keyring-1234!") == "token=***!"


def test_credential_shapes_are_hidden_without_being_known() -> None:
    scrubber = Scrubber()
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"
    text = (
        f"Authorization: Bearer abc.def-123 key {KEY} jwt {jwt} "
        "https://x.test/v1?key=AIzaSyA1234567890abcdefghijklmnopqrstu&alt=sse"
    )
    shown = scrubber.text(text)
    assert "abc.def-123" not in shown and KEY not in shown and jwt not in shown and "AIza" not in shown
    assert shown.startswith("Authorization: Bearer *** key *** jwt *** https://x.test/v1?key=***&alt=sse")


def test_fields_named_like_credentials_are_hidden_and_the_rest_kept() -> None:
    value = {
        "headers": {"Authorization": "Basic dXNlcjpwYXNz", "Accept": "text/plain"},
        "api_key": "anything at all",
        "items": [{"password": "x"}, {"count": 3, "ok": True, "none": None}],
        "schema": {"properties": {"token": {"type": "string"}}},
    }
    assert Scrubber().value(value) == {
        "headers": {"Authorization": "***", "Accept": "text/plain"},
        "api_key": "***",
        "items": [{"password": "***"}, {"count": 3, "ok": True, "none": None}],
        "schema": {"properties": {"token": {"type": "string"}}},
    }


def test_ordinary_words_that_contain_key_like_letters_stay() -> None:
    text = "a task-management-toolkit-for-everyone and a risk-assessment-of-the-whole-thing"
    assert Scrubber().text(text) == text


def test_a_urls_password_is_hidden_and_its_user_and_host_kept() -> None:
    text = "connecting to postgres://ada:s3cret-pw@db.internal:5432/notes"
    assert Scrubber().text(text) == "connecting to postgres://ada:***@db.internal:5432/notes"

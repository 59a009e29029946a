"""Fixtures of the core's tests."""

from __future__ import annotations

import ssl
from collections.abc import Iterator

import httpcore2
import pytest

from desktop_app.core import tls


@pytest.fixture
def tls_builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Each TLS context httpx builds from here on (its `trust_env`), the app's shared ones forgotten first."""
    built: list[bool] = []
    original = httpcore2.default_ssl_context

    def counting(*, _trust_env: bool = True) -> ssl.SSLContext:
        built.append(_trust_env)
        return original(_trust_env=_trust_env)

    monkeypatch.setattr(httpcore2, "default_ssl_context", counting)
    tls.forget()
    yield built
    tls.forget()  # no later test gets a context built under this test's environment

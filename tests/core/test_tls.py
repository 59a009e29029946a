"""The app's HTTP clients share one TLS context per trust setting (building one loads the whole CA store,
~25 ms of CPU with the window held), and it is httpx's own default: verifying, and trusting
`SSL_CERT_FILE` only where the client trusts the environment."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from desktop_app.core.tls import tls_context
from tests.core.auth.cimd_server import self_signed


def test_the_context_is_built_once_per_trust_setting_and_verifies(tls_builds: list[bool]) -> None:
    shared = tls_context()
    assert tls_context() is shared
    assert tls_context(trust_env=False) is tls_context(trust_env=False) is not shared
    assert tls_builds == [True, False]
    for context in (shared, tls_context(trust_env=False)):
        assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)


def test_ssl_cert_file_is_trusted_only_where_the_environment_is(
    tls_builds: list[bool], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    self_signed(tmp_path / "authority.pem", tmp_path / "key.pem")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "authority.pem"))
    [trusted] = tls_context().get_ca_certs()
    assert trusted["subject"] == ((("commonName", "MCP Desk test document host"),),)
    assert all(ca["subject"] != trusted["subject"] for ca in tls_context(trust_env=False).get_ca_certs())

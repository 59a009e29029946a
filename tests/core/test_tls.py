"""The app's HTTP clients share one TLS context per trust setting (building one loads the whole CA store,
~25 ms of CPU with the window held), and it is httpx's own default: verifying, and trusting
`SSL_CERT_FILE` only where the client trusts the environment."""

from __future__ import annotations

import datetime
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from desktop_app.core.tls import tls_context


def one_certificate(path: Path) -> Path:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test authority")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return path


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
    monkeypatch.setenv("SSL_CERT_FILE", str(one_certificate(tmp_path / "authority.pem")))
    [trusted] = tls_context().get_ca_certs()
    assert trusted["subject"] == ((("commonName", "test authority"),),)
    assert all(ca["subject"] != trusted["subject"] for ca in tls_context(trust_env=False).get_ca_certs())

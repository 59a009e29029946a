"""Test servers for signing in as a Client ID Metadata Document's client (SEP-3149).

`DocumentHost` serves documents over HTTPS on 127.0.0.1 with a certificate of its own (the test
points `SSL_CERT_FILE` at it). `CimdServer` is the OAuth test server whose authorization server lists
the token endpoint auth methods it is told to (or none), reads the document of each client it meets
(the same documents, by client ID) and refuses a token request whose method the document or the
server itself does not list; it verifies `private_key_jwt` assertions with the document's `jwks`.
Each token request's method is kept in `used`.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.servers.oauth_authorization import Client
from tests.servers.oauth_server import OAuthOptions, OAuthTestServer
from tests.servers.threaded_asgi import LOOPBACK

DOCUMENT_PATH: Final = "/oauth/mcp-desk.json"
_AUTH_METHODS: Final = "token_endpoint_auth_methods_supported"


def key_pair() -> tuple[str, dict[str, Any]]:
    """An RSA private key (PEM) and its public half as a JWK, as a document's `jwks` lists it."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    return pem.decode(), {**jwk, "use": "sig", "alg": "RS256"}


def method_used(form: dict[str, str], authorization: str) -> str:
    """How a token request authenticated its client."""
    if authorization.lower().startswith("basic "):
        return "client_secret_basic"
    if form.get("client_assertion"):
        return "private_key_jwt"
    return "client_secret_post" if form.get("client_secret") else "none"


def document_methods(document: dict[str, Any]) -> list[str]:
    """What a document allows, read as an authorization server reads it (the list, else the one, else none)."""
    listed = document.get(_AUTH_METHODS)
    if isinstance(listed, list) and listed:
        return listed
    single = document.get("token_endpoint_auth_method")
    return [single] if isinstance(single, str) else ["none"]


class DocumentHost:
    """HTTPS on 127.0.0.1 serving `documents` (path -> JSON); any other path is a 404."""

    def __init__(self, folder: Path) -> None:
        self.documents: dict[str, Any] = {}
        self.certificate = folder / "document-host.pem"
        self._key = folder / "document-host-key.pem"
        self_signed(self.certificate, self._key)
        self._server = ThreadingHTTPServer((LOOPBACK, 0), self._handler())
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.certificate, self._key)
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.origin = f"https://{LOOPBACK}:{self._server.server_address[1]}"
        self.fetched: list[str] = []

    @property
    def url(self) -> str:
        return self.origin + DOCUMENT_PATH

    @contextmanager
    def running(self) -> Iterator[DocumentHost]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join(10)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.fetched.append(self.path)
                found = host.documents.get(self.path)
                body = b"not found" if found is None else json.dumps(found).encode()
                self.send_response(404 if found is None else 200)
                self.send_header("Content-Type", "text/plain" if found is None else "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


class CimdServer(OAuthTestServer):
    """The OAuth test server taking metadata documents, with the token endpoint auth methods `methods`
    (None: its metadata lists none)."""

    def __init__(self, methods: list[str] | None, **options: Any) -> None:
        super().__init__(OAuthOptions(cimd=True, **options))
        self.methods = methods
        self.used: list[str] = []
        self.refused: list[str] = []

    async def _as_metadata(self, request: Request) -> Response:
        document = json.loads(bytes((await super()._as_metadata(request)).body))
        document.pop(_AUTH_METHODS)
        if self.methods is not None:
            document[_AUTH_METHODS] = self.methods
        return JSONResponse(document)

    async def _token(self, request: Request) -> Response:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        used = method_used(form, request.headers.get("authorization", ""))
        self.used.append(used)
        document = self.cimd_documents.get(_client_id(form), {})
        if used not in document_methods(document) or used not in (self.methods or document_methods(document)):
            self.refused.append(used)
            return JSONResponse({"error": "invalid_client", "error_description": f"{used} not allowed"}, 401)
        return await super()._token(request)

    def _client(self, client_id: str) -> Client | None:
        client = super()._client(client_id)
        keys = self.cimd_documents.get(client_id, {}).get("jwks", {}).get("keys", [])
        if client is not None and keys:
            public = jwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(keys[0]))
            client.public_key = public.public_bytes(  # type: ignore[union-attr]
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            ).decode()
        return client


def self_signed(certificate: Path, key_file: Path) -> None:
    """A certificate for 127.0.0.1 that is its own authority (the only one the test's client trusts)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "MCP Desk test document host")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(LOOPBACK))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    certificate.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


def _client_id(form: dict[str, str]) -> str:
    """The client a token request is for: its `client_id`, else its assertion's subject."""
    assertion = form.get("client_assertion")
    if form.get("client_id") or not assertion:
        return form.get("client_id", "")
    return str(jwt.decode(assertion, options={"verify_signature": False}).get("sub", ""))

"""Signing in as the client of a Client ID Metadata Document: the token endpoint auth method is one the
document (fetched over HTTPS) and the authorization server both list and MCP Desk can use; with none in
common the sign-in stops before the browser, naming both lists (SEP-3149).

Real servers on 127.0.0.1: the document over HTTPS with a certificate of its own, an authorization
server that reads the same document and refuses a token request whose method either side does not list.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.auth.client_auth import DocumentMethods, choose_method, usable_methods
from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.doctor import Diagnosis, Step
from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.flow import sign_in
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind
from tests.core.auth.cimd_server import DOCUMENT_PATH, CimdServer, DocumentHost, key_pair
from tests.core.auth.hosted import hosted, signed_in
from tests.servers.oauth_server import FollowingBrowser

pytestmark = pytest.mark.anyio

EVERY_METHOD = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]


@pytest.fixture
def documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[DocumentHost]:
    """The document host, its certificate the only one the sign-in's HTTPS client trusts."""
    host = DocumentHost(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(host.certificate))
    with host.running():
        yield host


def publish(documents: DocumentHost, server: CimdServer, **fields: Any) -> str:
    """MCP Desk's document, served at its address and known to the authorization server by it."""
    url = documents.url
    document = {"client_id": url, "client_name": "MCP Desk", "redirect_uris": ["http://127.0.0.1/callback"], **fields}
    documents.documents[DOCUMENT_PATH] = document
    server.cimd_documents[url] = document
    return url


def remote(server: CimdServer, url: str, **oauth: Any) -> ServerConfig:
    settings = OAuthSettings(client_metadata_url=url, **oauth)
    return ServerConfig(name="remote", transport=TransportKind.HTTP, url=server.url, timeout=10.0, oauth=settings)


async def test_the_method_in_common_is_used_and_a_key_makes_it_private_key_jwt(
    documents: DocumentHost, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    private_key, public_jwk = key_pair()
    server = CimdServer(EVERY_METHOD)
    with server.running():
        url = publish(
            documents,
            server,
            token_endpoint_auth_methods_supported=["private_key_jwt", "none"],
            jwks={"keys": [public_jwk]},
        )
        diagnosis = Diagnosis()
        keyless = await sign_in(remote(server, url), credentials, browser, diagnosis=diagnosis)
        keyed = await sign_in(remote(server, url, private_key=private_key), credentials, browser)
    assert server.used == ["none", "private_key_jwt"] and server.refused == []
    assert documents.fetched == [DOCUMENT_PATH, DOCUMENT_PATH]  # read at each sign-in
    assert [a["client_id"] for a in server.requests.authorize] == [url, url]
    assert keyless.client is not None and keyless.client.token_endpoint_auth_method == "none"
    assert keyed.client is not None and keyed.client.token_endpoint_auth_method == "private_key_jwt"
    assert keyed.tokens is not None  # the authorization server checked the assertion against the document's key
    finding = diagnosis.finding(Step.CLIENT)
    assert finding is not None and finding.ok and finding.how == "metadata document (none)"


async def test_the_deprecated_single_method_is_read_when_the_list_is_absent(
    documents: DocumentHost, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    private_key, public_jwk = key_pair()
    server = CimdServer(["private_key_jwt"])
    with server.running():
        url = publish(documents, server, token_endpoint_auth_method="private_key_jwt", jwks={"keys": [public_jwk]})
        await sign_in(remote(server, url, private_key=private_key), credentials, browser)
    assert server.used == ["private_key_jwt"]


@pytest.mark.parametrize(
    ("document", "server_methods", "configured", "expected"),
    [
        # The document wants a key MCP Desk was not given: private_key_jwt cannot be chosen.
        (["private_key_jwt"], EVERY_METHOD, {}, "lists private_key_jwt; the authorization server accepts "),
        # The authorization server takes only confidential clients.
        (["none"], ["private_key_jwt", "client_secret_basic"], {}, "accepts private_key_jwt, client_secret_basic;"),
        # A secret-based method is never MCP Desk's for a public document, whatever both sides say.
        (["client_secret_basic"], EVERY_METHOD, {}, "lists client_secret_basic; "),
        # A configured method narrows the choice to itself.
        (["none"], EVERY_METHOD, {"token_endpoint_auth_method": "private_key_jwt"}, "MCP Desk can use nothing"),
    ],
)
async def test_no_method_in_common_stops_before_the_browser_naming_both_lists(
    documents: DocumentHost,
    credentials: CredentialStore,
    browser: FollowingBrowser,
    document: list[str],
    server_methods: list[str],
    configured: dict[str, str],
    expected: str,
) -> None:
    diagnosis = Diagnosis()
    server = CimdServer(server_methods)
    with server.running():
        url = publish(documents, server, token_endpoint_auth_methods_supported=document)
        with pytest.raises(SignInError) as raised:
            await sign_in(remote(server, url, **configured), credentials, browser, diagnosis=diagnosis)
    message = str(raised.value)
    assert message.startswith("no client authentication method in common: the client metadata document ")
    assert f"{url} lists {', '.join(document)}" in message and expected in message
    assert f"the authorization server accepts {', '.join(server_methods)}" in message
    assert raised.value.step is Step.CLIENT and server.requests.authorize == [] and server.used == []
    assert credentials.load(server.url) is None
    failed = diagnosis.failed
    assert failed is not None and failed.step is Step.CLIENT


async def test_an_unreadable_document_counts_as_the_implicit_default_and_the_server_has_the_last_word(
    documents: DocumentHost, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    server = CimdServer(None)
    with server.running():  # the authorization server lists no methods at all
        url = publish(documents, server, token_endpoint_auth_methods_supported=["none"])
        del documents.documents[DOCUMENT_PATH]  # MCP Desk cannot read it; the authorization server can
        diagnosis = Diagnosis()
        record = await sign_in(remote(server, url), credentials, browser, diagnosis=diagnosis)
        assert server.used == ["none"] and record.tokens is not None
        finding = diagnosis.finding(Step.CLIENT)
        assert (
            finding is not None and finding.how == "metadata document (none; the document could not be read: HTTP 404)"
        )

        # When the document that cannot be read is what the authorization server wants, the sign-in says so.
        server.methods = ["private_key_jwt"]
        with pytest.raises(SignInError, match=r"could not be read \(HTTP 404\), so it counts as none; "):
            await sign_in(remote(server, url), credentials, browser)


async def test_a_document_naming_another_client_is_not_believed(
    documents: DocumentHost, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    server = CimdServer(["none", "private_key_jwt"])
    with server.running():
        url = publish(documents, server, token_endpoint_auth_methods_supported=["none"])
        documents.documents[DOCUMENT_PATH] = {
            "client_id": "https://elsewhere.example/client.json",
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
        }
        await sign_in(remote(server, url), credentials, browser)
    assert server.used == ["none"]


async def test_a_renewal_proves_the_client_again_with_its_key(
    documents: DocumentHost, secrets: SecretStore, browser: FollowingBrowser
) -> None:
    private_key, public_jwk = key_pair()
    server = CimdServer(EVERY_METHOD)
    with server.running():
        url = publish(
            documents, server, token_endpoint_auth_methods_supported=["private_key_jwt"], jwks={"keys": [public_jwk]}
        )
        async with hosted(secrets, browser, remote(server, url, private_key=private_key)) as (host, _):
            await signed_in(host)
            server.expire_access_tokens()  # the server stops accepting the token: the session refreshes it
            assert not (await host.connection("remote").call_tool("whoami", {})).is_error
    assert [t["grant_type"] for t in server.requests.token] == ["authorization_code", "refresh_token"]
    assert server.used == ["private_key_jwt", "private_key_jwt"] and server.refused == []
    assert documents.fetched == [DOCUMENT_PATH]  # the method was kept with the sign-in, not asked again


def test_what_the_other_sides_list_is_named_in_one_short_printable_line() -> None:
    hostile = "none\n\x1b[31mTRUSTED\x1b[0m" + "x" * 5_000
    document = DocumentMethods(("client_secret_basic", hostile))
    with pytest.raises(SignInError) as raised:
        choose_method("https://desk.example/client.json", document, [hostile] * 1_000, usable_methods(OAuthSettings()))
    message = str(raised.value)
    assert message.isprintable() and "\x1b" not in message and len(message) < 20 * 300
    assert "lists client_secret_basic, none [31mTRUSTED" in message and message.endswith("MCP Desk can use none")

"""DPoP (RFC 9449): tokens bound to a key in the secret store, a fresh proof on every request, nonces.

The servers are real (127.0.0.1) and strict (`dpop_server`): every proof's signature, method, URI,
`ath`, key and `jti` is checked, so a request that passes carried a proof that holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from desktop_app.core.auth.credentials import AuthRecord, CredentialStore
from desktop_app.core.auth.dpop import Proofs, new_key, target_uri, token_hash
from desktop_app.core.secret_store import SecretStore
from tests.core.auth.conftest import remote
from tests.core.auth.dpop_server import DPoPServer, thumbprint
from tests.core.auth.hosted import hosted, signed_in
from tests.servers.oauth_server import Client, FollowingBrowser, OAuthOptions

pytestmark = pytest.mark.anyio

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}


@contextmanager
def dpop_server(**options: object) -> Iterator[DPoPServer]:
    with DPoPServer(OAuthOptions(), **options).running() as server:  # type: ignore[arg-type]
        assert isinstance(server, DPoPServer)
        yield server


def stored(secrets: SecretStore, server: DPoPServer) -> AuthRecord:
    record = CredentialStore(lambda: secrets).load(server.url)
    assert record is not None and record.tokens is not None
    return record


async def test_the_token_is_bound_to_a_key_kept_only_in_the_secret_store(
    secrets: SecretStore, browser: FollowingBrowser, caplog: pytest.LogCaptureFixture
) -> None:
    with dpop_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            connection = host.connection("remote")
            for _ in range(2):
                assert not (await connection.call_tool("whoami", {})).is_error
            log_text = "\n".join(entry.text for entry in connection.log)

    assert server.seen.refusals == []
    record = stored(secrets, server)
    assert record.dpop_bound and record.dpop_key is not None
    public = json.loads(record.dpop_key)
    # The code exchange was proved with the stored key, and the token is bound to it.
    assert [proof["jkt"] for proof in server.seen.token_proofs] == [thumbprint(public)]
    assert server.bound[record.tokens.access_token] == thumbprint(public)  # type: ignore[union-attr]
    # Every MCP request: the DPoP scheme, its own proof (the server refuses a reused jti) for this token.
    proofs = server.seen.resource_proofs
    assert len(proofs) >= 4  # the handshake, the listing, two calls
    assert all(p["ath"] == token_hash(record.tokens.access_token) for p in proofs)  # type: ignore[union-attr]
    assert all(p["htm"] == "POST" and p["htu"] == server.url for p in proofs)
    # The private key is never shown: not in the record's repr, the server's log or any log line.
    for text in (repr(record), log_text, caplog.text):
        assert public["d"] not in text


async def test_a_stolen_access_token_is_useless_without_the_key(
    secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with dpop_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            connection = host.connection("remote")
            assert not (await connection.call_tool("whoami", {})).is_error
            token = stored(secrets, server).tokens.access_token  # type: ignore[union-attr]
            captured = server.seen.raw_resource_proofs[-1]
            thief_key = ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()))
            thief = Proofs()

            async with httpx2.AsyncClient(timeout=10) as http:

                async def replay(**headers: str) -> int:
                    response = await http.post(server.url, json=LIST_TOOLS, headers={**MCP_HEADERS, **headers})
                    return response.status_code

                assert await replay(Authorization=f"Bearer {token}") == 401  # as a bearer token
                assert await replay(Authorization=f"DPoP {token}") == 401  # without a proof
                own_proof = thief.proof("POST", server.url, thief_key, token)
                assert await replay(Authorization=f"DPoP {token}", DPoP=own_proof) == 401  # the thief's key
                assert await replay(Authorization=f"DPoP {token}", DPoP=captured) == 401  # a captured proof

            # MCP Desk, which holds the key, goes on working.
            assert not (await connection.call_tool("whoami", {})).is_error
    assert server.seen.refusals[-4:] == [
        "resource: Bearer scheme for a DPoP-bound token",
        "resource: no single DPoP proof",
        "resource: proof by another key than the token's",
        "resource: jti reused",
    ]


async def test_nonces_are_asked_for_once_and_kept(secrets: SecretStore, browser: FollowingBrowser) -> None:
    with dpop_server(nonces=True) as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            connection = host.connection("remote")
            for _ in range(3):
                assert not (await connection.call_tool("whoami", {})).is_error
    refusals = server.seen.refusals
    # One retry at the token endpoint; at the MCP server one per session (the sign-in starts a new one).
    assert refusals.count("token: nonce") == 1
    assert 1 <= refusals.count("resource: nonce") <= 2
    assert set(refusals) == {"token: nonce", "resource: nonce"}
    assert all(p["nonce"] == server.nonce["as"] for p in server.seen.token_proofs)
    assert all(p["nonce"] == server.nonce["rs"] for p in server.seen.resource_proofs)


async def test_renewal_is_proved_with_the_same_key(secrets: SecretStore, browser: FollowingBrowser) -> None:
    with dpop_server(nonces=True) as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            first = stored(secrets, server)
            server.expire_access_tokens()  # the next call is refused, then renewed with the refresh token
            assert not (await host.connection("remote").call_tool("whoami", {})).is_error
            renewed = stored(secrets, server)
    assert renewed.tokens.access_token != first.tokens.access_token  # type: ignore[union-attr]
    assert renewed.dpop_key == first.dpop_key and renewed.dpop_bound
    jkts = {proof["jkt"] for proof in server.seen.token_proofs}
    assert len(server.seen.token_proofs) == 2 and jkts == {thumbprint(json.loads(first.dpop_key or "{}"))}


async def test_a_machine_to_machine_token_is_bound_too(secrets: SecretStore, browser: FollowingBrowser) -> None:
    with dpop_server(nonces=True) as server:
        robot = Client("robot", secret="s3cret", auth_method="client_secret_basic", grant_types=["client_credentials"])
        server.register_client(robot)
        config = remote(server, grant="client_credentials", client_id="robot", client_secret="s3cret")
        async with hosted(secrets, browser, config) as (host, _):
            assert not (await host.connection("remote").call_tool("whoami", {})).is_error
    assert stored(secrets, server).dpop_bound
    assert len(server.seen.token_proofs) == 1 and server.seen.resource_proofs


async def test_a_bearer_token_from_a_dpop_server_is_used_as_one(
    secrets: SecretStore, browser: FollowingBrowser
) -> None:
    with dpop_server(bind=False) as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            await signed_in(host)
            assert not (await host.connection("remote").call_tool("whoami", {})).is_error
    record = stored(secrets, server)
    assert server.seen.token_proofs and not record.dpop_bound  # proved, but the server issued a bearer token


def test_each_proof_is_new_and_covers_only_its_request() -> None:
    key, proofs = new_key(), Proofs()
    first = proofs.proof("POST", "https://mcp.example/mcp?session=1#x", key, "token-1")
    second = proofs.proof("POST", "https://mcp.example/mcp", key, "token-1")
    claims = [jwt.decode(p, options={"verify_signature": False}) for p in (first, second)]
    assert claims[0]["jti"] != claims[1]["jti"]
    assert claims[0]["htu"] == target_uri("https://mcp.example/mcp") == "https://mcp.example/mcp"
    assert claims[0]["ath"] == token_hash("token-1")
    header = jwt.get_unverified_header(first)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]


@pytest.mark.parametrize(
    ("status", "headers", "body", "retry"),
    [
        (400, {"DPoP-Nonce": "n-1"}, {"error": "use_dpop_nonce"}, True),
        (401, {"DPoP-Nonce": "n-1", "WWW-Authenticate": 'DPoP error="use_dpop_nonce"'}, {}, True),
        (401, {"DPoP-Nonce": "n-1", "WWW-Authenticate": 'DPoP error="invalid_token"'}, {}, False),
        (400, {"DPoP-Nonce": 'a "quoted" nonce'}, {"error": "use_dpop_nonce"}, False),  # not NQCHARs: ignored
        (400, {}, {"error": "use_dpop_nonce"}, False),  # no nonce to retry with
    ],
)
def test_a_nonce_challenge_asks_for_one_retry(
    status: int, headers: dict[str, str], body: dict[str, str], retry: bool
) -> None:
    proofs = Proofs()
    request = httpx2.Request("POST", "https://as.example/token")
    response = httpx2.Response(status, headers=headers, json=body, request=request)
    assert proofs.wants_retry(response) is retry
    assert proofs.wants_retry(response) is False  # the same nonce again is not worth another try

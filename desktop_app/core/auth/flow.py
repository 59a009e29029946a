"""One sign-in, start to end, in the calling task and outside any MCP session.

The SDK's flow is an httpx auth generator that starts from a refused request. Here it is driven
by hand: it is handed the server's refusal (the challenge a session met, or a fresh probe's),
each request it yields (metadata, registration, token) is checked and sent on a client of its
own, its answer read with a cap (`limits`), and once it retries the refused request with a
token, the sign-in is done. Nothing is stored until then: a sign-in that fails or is cancelled
leaves the previous record as it was. The loopback listener is opened and closed here, by the
task that signs in, and told which answer to wait for before the browser is shown the page.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Final
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthRegistrationError
from mcp.shared.auth import OAuthMetadata
from pydantic import ValidationError

from desktop_app.core.auth.browser import BrowserOpener
from desktop_app.core.auth.clients import build_provider
from desktop_app.core.auth.credentials import AuthRecord, CredentialStore
from desktop_app.core.auth.errors import Challenge, SignInError, describe_sign_in_error
from desktop_app.core.auth.limits import send_capped
from desktop_app.core.auth.loopback import LoopbackListener
from desktop_app.core.auth.provider import Browser, RecordStorage, is_secure_endpoint
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind
from desktop_app.core.server_errors import transport_failure

log = logging.getLogger(__name__)


class _ReportedHere(logging.Filter):
    """The SDK logs each flow failure with a traceback; MCP Desk reports it as one line instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "OAuth flow error" and not record.getMessage().startswith("Token refresh failed")


logging.getLogger("mcp.client.auth.oauth2").addFilter(_ReportedHere())

BROWSER_TIMEOUT_S: Final = 300.0
REQUEST_TIMEOUT_S: Final = 30.0
_AS_METADATA_PATHS: Final = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")
_PROBE: Final = {"jsonrpc": "2.0", "id": "mcp-desk-sign-in", "method": "ping"}


async def sign_in(
    config: ServerConfig,
    credentials: CredentialStore,
    opener: BrowserOpener,
    *,
    challenge: Challenge | None = None,
    browser_timeout: float = BROWSER_TIMEOUT_S,
    client_metadata_url: str | None = None,
) -> AuthRecord:
    """Sign in to the remote server `config` (placeholders resolved) and store the result.

    `challenge` is the refusal that made the sign-in necessary (a 403 asks for more scopes); without
    one the server is asked. Raises `SignInError` with one line for the user.
    """
    assert config.url is not None
    settings = config.oauth or OAuthSettings()
    stored = credentials.load(config.url) or AuthRecord(config.url)
    async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT_S, headers=dict(config.headers)) as http:
        probe = _probe(config)
        if challenge is None:
            challenge = await _ask_server(http, probe)
        if settings.machine_to_machine:
            storage = RecordStorage(AuthRecord(config.url))
            provider = build_provider(config.url, settings, storage, challenge=challenge)
            await _drive(http, provider, probe, challenge, config.url)
        else:
            # A step-up builds on the granted sign-in; a new sign-in keeps only a registration that still fits.
            start = stored if challenge.step_up else AuthRecord(config.url, issuer=stored.issuer, client=stored.client)
            preferred = settings.callback_port or _registered_port(start)
            async with LoopbackListener(preferred, required=settings.callback_port is not None) as listener:

                async def show(url: str) -> None:
                    listener.expect_response_to(url)  # before the browser can come back
                    await opener.open(url)

                storage = RecordStorage(start)
                provider = build_provider(
                    config.url,
                    settings,
                    storage,
                    redirect_uri=listener.redirect_uri,
                    browser=Browser(open=show, receive=lambda: listener.wait(browser_timeout)),
                    challenge=challenge,
                    client_metadata_url=settings.client_metadata_url or client_metadata_url,
                )
                await _drive(http, provider, probe, challenge, config.url)
    record = _finished(storage.record, provider, pre_registered=settings.client_id is not None)
    credentials.save(record)
    return record


def _probe(config: ServerConfig) -> httpx2.Request:
    """A harmless request to the server, refused until signed in: the request the flow starts from."""
    assert config.url is not None
    if config.transport is TransportKind.SSE:
        return httpx2.Request("GET", config.url, headers={"Accept": "text/event-stream"})
    return httpx2.Request(
        "POST",
        config.url,
        json=_PROBE,
        headers={"Accept": "application/json, text/event-stream", "Content-Type": "application/json"},
    )


async def _ask_server(http: httpx2.AsyncClient, probe: httpx2.Request) -> Challenge:
    """The server's refusal of an unauthenticated request (a server that does not refuse gets a bare one)."""
    try:
        response = await http.send(probe, stream=True)  # an SSE endpoint would stream forever: headers only
        await response.aclose()
    except httpx2.TransportError as exc:
        raise SignInError(f"cannot reach the server ({transport_failure(exc)})") from exc
    if response.status_code == 401 or Challenge.of(response).step_up:
        return Challenge.of(response)
    return Challenge(401)  # it answered without a token; sign in anyway, discovering from the well-known URLs


async def _drive(
    http: httpx2.AsyncClient,
    provider: OAuthClientProvider,
    probe: httpx2.Request,
    challenge: Challenge,
    server_url: str,
) -> None:
    """Run the SDK's flow to the point where it retries `probe` with a new token."""
    notes: list[str] = []
    flow = provider.async_auth_flow(probe)
    challenged = False
    try:
        request = await flow.__anext__()
        while True:
            if request is probe:
                if challenged:
                    return  # the SDK retries the refused request with its new token: signed in
                challenged = True
                response = challenge.response(probe)
            else:
                if request.method != "GET":
                    _require_metadata(provider, notes)
                response = await _send(http, request, server_url, notes)
            request = await flow.asend(response)
    except StopAsyncIteration:
        raise SignInError("the sign-in ended without a token") from None
    except SignInError as exc:
        if notes and "publishes no usable" in str(exc):
            raise SignInError(notes[-1]) from exc
        raise
    except OAuthRegistrationError as exc:
        context = provider.context
        if context.oauth_metadata is None and context.protected_resource_metadata is None:
            raise SignInError("the server does not say how to sign in (it publishes no OAuth metadata)") from exc
        raise SignInError(describe_sign_in_error(exc)) from exc
    except Exception as exc:
        log.debug("sign-in failed", exc_info=True)
        raise SignInError(describe_sign_in_error(exc)) from exc
    finally:
        await flow.aclose()


async def _send(
    http: httpx2.AsyncClient, request: httpx2.Request, server_url: str, notes: list[str]
) -> httpx2.Response:
    """Send one of the flow's own requests, to a place authorization traffic may go."""
    url = str(request.url)
    if (request.method != "GET" or _origin(url) != _origin(server_url)) and not is_secure_endpoint(url):
        # Spec ("Communication Security"): authorization server endpoints MUST be served over HTTPS.
        # The SDK sends wherever the metadata points.
        raise SignInError(f"refusing to send sign-in traffic to {_origin(url)}: it is not HTTPS")
    try:
        response = await send_capped(http, request)
    except httpx2.TransportError as exc:
        raise SignInError(f"cannot reach {_origin(url)} ({transport_failure(exc)})") from exc
    if request.method == "GET" and any(path in request.url.path for path in _AS_METADATA_PATHS):
        _note_metadata_problem(response, notes)
    return response


def _require_metadata(provider: OAuthClientProvider, notes: list[str]) -> None:
    """Stop before registering or exchanging anything when the named authorization server was not found.

    Spec (2025-06-18 and later): an authorization server named by the protected resource is used
    through its metadata. The SDK then falls back to `/register`, `/authorize` and `/token` at
    the MCP server's own origin, a rule meant only for 2025-03-26 servers without metadata.
    """
    context = provider.context
    if context.protected_resource_metadata is not None and context.oauth_metadata is None:
        server = context.auth_server_url or "the authorization server"
        raise SignInError(notes[-1] if notes else f"{server} publishes no usable authorization server metadata")


def _note_metadata_problem(response: httpx2.Response, notes: list[str]) -> None:
    """Remember why an authorization server's metadata could not be used, for a clearer final error."""
    where = _origin(str(response.request.url))
    if response.status_code >= 500:
        notes.append(f"the authorization server at {where} is not working (HTTP {response.status_code})")
    elif response.status_code == 200:
        try:
            OAuthMetadata.model_validate_json(response.content)
        except (ValidationError, json.JSONDecodeError):
            notes.append(f"the authorization server at {where} sent metadata MCP Desk cannot read")


def _finished(record: AuthRecord, provider: OAuthClientProvider, *, pre_registered: bool) -> AuthRecord:
    """The record to store: the new tokens, bound to the issuer that issued them, with what a refresh needs."""
    context = provider.context
    if record.tokens is None:
        raise SignInError("the authorization server issued no token")
    metadata = context.oauth_metadata
    issuer = str(metadata.issuer) if metadata is not None else provider._expected_issuer()
    return replace(
        record,
        issuer=issuer,
        client=None if pre_registered else record.client,
        metadata=metadata,
        resource_metadata=context.protected_resource_metadata,
    )


def _registered_port(record: AuthRecord) -> int | None:
    """The loopback port a stored registration was made for, so it can be reused without registering again."""
    client = record.client
    if client is None or not client.redirect_uris:
        return None
    return urlsplit(str(client.redirect_uris[0])).port


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"

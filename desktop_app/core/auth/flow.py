"""One sign-in, start to end, in the calling task and outside any MCP session.

The SDK's flow is an httpx auth generator that starts from a refused request: the challenge a
session met, or, when there is none, the refusal a real connection's handshake meets without a
token (`probe`). `driver` runs it: each request it yields (metadata, registration, token) is
checked, sent on a client of its own, read with a cap and noted in the sign-in's `Diagnosis`;
once the flow retries the refused request with a token, the sign-in is done. Nothing is stored
until then: a sign-in that fails or is cancelled leaves the previous record as it was. The
loopback listener is opened and closed here, by the task that signs in, and told which answer to
wait for before the browser is shown the page (which is also offered for pasting back, `paste`).
An organisation's sign-in (`enterprise`) goes through the identity provider instead. Signing in as
the client of a Client ID Metadata Document reads that document through the same sender first, for
the authentication methods it lists (`client_auth`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Final
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider

from desktop_app.core.auth.browser import BrowserOpener, NoBrowser
from desktop_app.core.auth.clients import build_provider
from desktop_app.core.auth.credentials import AuthRecord, CredentialStore
from desktop_app.core.auth.doctor import Diagnosis, Step
from desktop_app.core.auth.driver import Sender, check_page, drive
from desktop_app.core.auth.enterprise import enterprise_sign_in, is_enterprise
from desktop_app.core.auth.errors import Challenge, SignInCancelled, SignInError
from desktop_app.core.auth.idp import IdentityProviderSettings
from desktop_app.core.auth.loopback import LoopbackListener
from desktop_app.core.auth.paste import PastedRedirect
from desktop_app.core.auth.probe import first_refusal
from desktop_app.core.auth.provider import Browser, RecordStorage
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind
from desktop_app.core.tls import tls_context

log = logging.getLogger(__name__)


class _ReportedHere(logging.Filter):
    """The SDK logs each flow failure with a traceback; MCP Desk reports it as one line instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "OAuth flow error" and not record.getMessage().startswith("Token refresh failed")


logging.getLogger("mcp.client.auth.oauth2").addFilter(_ReportedHere())

BROWSER_TIMEOUT_S: Final = 300.0
REQUEST_TIMEOUT_S: Final = 30.0
_PROBE: Final = {"jsonrpc": "2.0", "id": "mcp-desk-sign-in", "method": "ping"}


async def sign_in(
    config: ServerConfig,
    credentials: CredentialStore,
    opener: BrowserOpener,
    *,
    challenge: Challenge | None = None,
    browser_timeout: float = BROWSER_TIMEOUT_S,
    client_metadata_url: str | None = None,
    diagnosis: Diagnosis | None = None,
    paste: PastedRedirect | None = None,
    identity_provider: IdentityProviderSettings | None = None,
    interactive: bool = True,
) -> AuthRecord:
    """Sign in to the remote server `config` (placeholders resolved) and store the result.

    `challenge` is the refusal that made the sign-in necessary (a 403 asks for more scopes); without
    one, a real connection's handshake is refused and that refusal is used. Each step lands in
    `diagnosis`; the browser's page is offered to `paste`. `interactive` False never opens a
    browser (a sign-in the app makes by itself). Raises `SignInError` with one line for the user.
    """
    assert config.url is not None
    settings = config.oauth or OAuthSettings()
    diagnosis = diagnosis if diagnosis is not None else Diagnosis()
    paste = paste or PastedRedirect()
    if challenge is None:
        refusal = await first_refusal(config)
        challenge, probe = refusal.challenge, refusal.request
    else:
        probe = _probe(config)
    diagnosis.resource_metadata_url = challenge.resource_metadata
    # No default headers: the user's headers for the MCP server (an API key) are not the sign-in's to send.
    async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT_S, verify=tls_context()) as http:
        sender = Sender(http, config.url, diagnosis)

        @contextlib.asynccontextmanager
        async def listening(port: int | None = None, *, required: bool = False) -> AsyncIterator[Browsing]:
            async with LoopbackListener(port, required=required) as listener:
                paste.attach(listener)

                async def show(url: str) -> None:
                    listener.expect_response_to(url)  # before the browser can come back
                    paste.shown(url)
                    await opener.open(url)

                try:
                    yield listener, show
                except SignInCancelled as exc:
                    page = paste.page
                    if page is not None and exc.step in (Step.BROWSER, Step.IDP_SIGN_IN):
                        raise await check_page(sender, page, exc) from exc
                    raise
                finally:
                    paste.detach()

        if is_enterprise(settings):
            record = await enterprise_sign_in(
                config.url,
                settings,
                identity_provider,
                credentials,
                sender,
                probe,
                challenge,
                listening=listening if interactive else None,
                browser_timeout=browser_timeout,
            )
        elif settings.machine_to_machine:
            storage = RecordStorage(AuthRecord(config.url))
            provider = build_provider(config.url, settings, storage, challenge=challenge, diagnosis=diagnosis)
            await drive(sender, provider, probe, challenge)
            record = _finished(storage.record, provider, pre_registered=True)
        elif not interactive:
            raise SignInError("this server's sign-in needs the browser", step=Step.BROWSER)
        else:
            stored = credentials.load(config.url) or AuthRecord(config.url)
            # A step-up builds on the granted sign-in; a new sign-in keeps only a registration that still fits.
            start = stored if challenge.step_up else AuthRecord(config.url, issuer=stored.issuer, client=stored.client)
            preferred = settings.callback_port or _registered_port(start)
            async with listening(preferred, required=settings.callback_port is not None) as (listener, show):
                storage = RecordStorage(start)
                provider = build_provider(
                    config.url,
                    settings,
                    storage,
                    redirect_uri=listener.redirect_uri,
                    browser=Browser(open=show, receive=lambda: listener.wait(browser_timeout)),
                    challenge=challenge,
                    client_metadata_url=settings.client_metadata_url or client_metadata_url,
                    diagnosis=diagnosis,
                    read_document=lambda url: sender.send(_document_request(url)),
                )
                await drive(sender, provider, probe, challenge)
            record = _finished(storage.record, provider, pre_registered=settings.client_id is not None)
    credentials.save(record)
    return record


async def renew_quietly(
    config: ServerConfig, credentials: CredentialStore, identity_provider: IdentityProviderSettings | None
) -> AuthRecord:
    """An organisation's sign-in to `config` again, without the user (while the ID token lasts), at
    the authorization server it signed in at before."""
    assert config.url is not None
    stored = credentials.load(config.url)
    settings = config.oauth or OAuthSettings()
    if settings.issuer is None and stored is not None and stored.issuer is not None:
        settings = replace(settings, issuer=stored.issuer)
    return await sign_in(
        replace(config, oauth=settings),
        credentials,
        NoBrowser(),
        challenge=Challenge(401),
        identity_provider=identity_provider,
        interactive=False,
    )


Browsing = tuple[LoopbackListener, Callable[[str], Awaitable[None]]]
"""The loopback listener of a browser step and the way to show the user a page."""


def _probe(config: ServerConfig) -> httpx2.Request:
    """A request standing for the one a session had refused: the flow starts from it and retries it."""
    assert config.url is not None
    if config.transport is TransportKind.SSE:
        return httpx2.Request("GET", config.url, headers={"Accept": "text/event-stream"})
    return httpx2.Request(
        "POST",
        config.url,
        json=_PROBE,
        headers={"Accept": "application/json, text/event-stream", "Content-Type": "application/json"},
    )


def _document_request(url: str) -> httpx2.Request:
    """The GET of MCP Desk's Client ID Metadata Document, for the methods it lists (`client_auth`). The
    diagnosis notes what came of it with the client identity, not as an exchange of its own."""
    return httpx2.Request("GET", url, headers={"Accept": "application/json"})


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

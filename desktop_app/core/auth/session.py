"""A session's side of a sign-in: silent work only, inside the server's transport.

Each request gets the stored token; it is renewed shortly before it expires and once more on a
401 (the refresh grant, client credentials again, or for an organisation's sign-in a new ID-JAG
from the stored ID token), and the outcome goes to an observer instead of opening a browser
mid-request. Renewal goes out on an HTTP client of its own, so a token endpoint that is down
fails the renewal, never the transport; its answer is read with a cap and an oversized token
refused (`limits`), as at sign-in. A DPoP-bound token goes out with a fresh proof each time
(`dpop`), and a server asking for a DPoP nonce gets the request once more with it. Once the
observer says a refusal ended the session (it waits for the user now), nothing more is sent on
it: with `mode="auto"` the SDK would otherwise try the old handshake after a refused
`server/discover` and meet the same refusal twice.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Final

import anyio
import httpx2
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import OAuthToken
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER

from desktop_app.core.auth.credentials import AuthRecord
from desktop_app.core.auth.dpop import Proofs
from desktop_app.core.auth.errors import SignInError, describe_sign_in_error
from desktop_app.core.auth.limits import send_capped
from desktop_app.core.auth.provider import RecordStorage, is_secure_endpoint
from desktop_app.core.server_config import OAuthSettings
from desktop_app.core.tls import tls_context

RENEWAL_TIMEOUT_S: Final = 30.0

SessionObserver = Callable[[httpx2.Response, str | None], bool]
"""Told how each session request ended: the response, and why the stored sign-in was given up (if it
was). Returns True when that ended the session: it waits for a sign-in and sends nothing more."""


class SessionEnded(httpx2.TransportError):
    """A request on a session that already waits for the user to sign in: it is not sent."""


class _SilentRenewal:
    """The request flow both kinds of session share: the stored token on every request, renewed
    before it expires and once more on a 401, and the outcome told to the observer."""

    _observer: SessionObserver
    storage: RecordStorage
    proofs: Proofs
    _ended: bool = False
    renewal_failure: str | None = None
    """Why the last silent renewal failed, in one line."""

    def _session_lock(self) -> anyio.Lock:
        raise NotImplementedError

    async def _before_send(self, request: httpx2.Request) -> bool | None:
        """Ready to send `request`: renewed in time (True), failed to renew (False), or no renewal due (None)."""
        raise NotImplementedError

    def _session_tokens(self) -> OAuthToken | None:
        raise NotImplementedError

    async def _renew(self) -> bool:
        raise NotImplementedError

    async def _silent_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self._ended:
            raise SessionEnded("the server refused this session until the user signs in", request=request)
        async with self._session_lock():
            renewed = await self._before_send(request)
            sent = self._attach(request)
        response = yield request
        if self.proofs.wants_retry(response) and sent is not None and self.storage.record.dpop_bound:
            async with self._session_lock():  # RFC 9449 §9: the same request once more, with the server's nonce
                sent = self._attach(request)
            response = yield request
        given_up = self.renewal_failure if renewed is False else None
        if response.status_code == 401 and sent is not None and renewed is None:
            # Refresh on a 401 before asking the user again; the SDK starts a whole new sign-in.
            async with self._session_lock():
                tokens = self._session_tokens()
                current = tokens.access_token if tokens else None
                if current is None:  # another request gave the sign-in up meanwhile
                    retry, given_up = False, self.renewal_failure
                elif current != sent:  # another request renewed it meanwhile
                    retry = True
                else:
                    retry = await self._renew()
                    given_up = None if retry else self.renewal_failure
            if retry:
                self._attach(request)
                response = yield request
        if self._observer(response, given_up):
            self._ended = True

    def _attach(self, request: httpx2.Request) -> str | None:
        tokens = self._session_tokens()
        if tokens is None or not tokens.access_token:
            return None
        record = self.storage.record
        if record.dpop_bound and record.dpop_key is not None:
            self.proofs.sign(request, record.dpop_key, tokens.access_token)
        else:
            request.headers["Authorization"] = f"Bearer {tokens.access_token}"
        return tokens.access_token


class SessionAuth(_SilentRenewal):
    """`_auth_flow` for a session: silent renewal only (see the module docstring); mixed in first."""

    context: OAuthContext
    settings: OAuthSettings
    _initialized: bool

    def _session_setup(self, observer: SessionObserver) -> None:
        self._observer = observer

    def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        return self._silent_flow(request)

    def _session_lock(self) -> anyio.Lock:
        return self.context.lock

    async def _before_send(self, request: httpx2.Request) -> bool | None:
        context = self.context
        if not self._initialized:
            await self._initialize()  # type: ignore[attr-defined]
        context.protocol_version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if context.current_tokens is not None and not context.is_token_valid():
            return await self._renew()
        return None

    def _session_tokens(self) -> OAuthToken | None:
        return self.context.current_tokens

    def reload(self, record: AuthRecord) -> None:
        """Use a new sign-in (a step-up's) from the next request on."""
        self.storage.record = record
        self._initialized = False
        self._ended = False

    async def _renew(self) -> bool:
        """A new access token without the user: the refresh grant, or client credentials again."""
        context = self.context
        try:
            tokens = context.current_tokens
            if tokens is not None and tokens.refresh_token and context.client_info is not None:
                response = await self._exchange(await self._refresh_token())  # type: ignore[attr-defined]
                if await self._handle_refresh_response(response):  # type: ignore[attr-defined]
                    return True
                self.renewal_failure = "the sign-in has expired or was revoked"
            elif self.settings.machine_to_machine and context.oauth_metadata is not None:
                # Client credentials or a workload's JWT: the grant again, without the user.
                exchange = await self._perform_authorization()  # type: ignore[attr-defined]
                await self._handle_token_response(await self._exchange(exchange))  # type: ignore[attr-defined]
                return True
            else:
                self.renewal_failure = "the sign-in has expired"
        except Exception as exc:  # a renewal may fail; it must never break the transport
            self.renewal_failure = f"could not renew the sign-in: {describe_sign_in_error(exc)}"
        context.clear_tokens()
        self.storage.forget_tokens()
        return False

    async def _exchange(self, request: httpx2.Request) -> httpx2.Response:
        """A token request, sent aside: proved where the authorization server takes DPoP, once more with its nonce."""
        key: str | None = self._dpop_key(request)  # type: ignore[attr-defined]
        if key is None:
            return await _send_aside(request)
        self.proofs.sign(request, key)
        response = await _send_aside(request)
        if self.proofs.wants_retry(response):
            self.proofs.sign(request, key)
            response = await _send_aside(request)
        return self._read_token_type(response)  # type: ignore[attr-defined,no-any-return]


async def _send_aside(request: httpx2.Request) -> httpx2.Response:
    """Send a token request on a client of its own (never through the MCP transport)."""
    if not is_secure_endpoint(str(request.url)):
        raise SignInError(f"refusing to send credentials to {request.url.host} over plain HTTP")
    async with httpx2.AsyncClient(timeout=RENEWAL_TIMEOUT_S, verify=tls_context()) as http:
        return await send_capped(http, request)


class EnterpriseSession(_SilentRenewal, httpx2.Auth):
    """A session's side of an organisation's sign-in: the stored token, renewed without the user by
    `renew` (a new ID-JAG from the stored ID token, then the JWT bearer grant)."""

    def __init__(
        self, storage: RecordStorage, renew: Callable[[], Awaitable[AuthRecord]], observer: SessionObserver
    ) -> None:
        self.storage = storage
        self._renew_with = renew
        self._observer = observer
        self._flow_lock = anyio.Lock()
        self.proofs = Proofs()

    def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        return self._silent_flow(request)

    def _session_lock(self) -> anyio.Lock:
        return self._flow_lock

    async def _before_send(self, request: httpx2.Request) -> bool | None:
        record = self.storage.record
        if record.tokens is not None and record.renew_at is not None and time.time() >= record.renew_at:
            return await self._renew()
        return None

    def _session_tokens(self) -> OAuthToken | None:
        return self.storage.record.tokens

    def reload(self, record: AuthRecord) -> None:
        """Use a new sign-in from the next request on."""
        self.storage.record = record
        self._ended = False

    async def _renew(self) -> bool:
        try:
            self.storage.record = await self._renew_with()
        except Exception as exc:  # a renewal may fail; it must never break the transport
            self.renewal_failure = f"could not renew the organisation's sign-in: {describe_sign_in_error(exc)}"
            self.storage.forget_tokens()
            return False
        return True

"""A session's side of a sign-in: silent work only, inside the server's transport.

Each request gets the stored token; it is renewed shortly before it expires and once more on a
401 (the refresh grant, or client credentials again), and the outcome goes to an observer
instead of opening a browser mid-request. Renewal goes out on an HTTP client of its own, so a
token endpoint that is down fails the renewal, never the transport; its answer is read with a
cap and an oversized token refused (`limits`), as at sign-in.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Final

import httpx2
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER

from desktop_app.core.auth.credentials import AuthRecord
from desktop_app.core.auth.errors import SignInError, describe_sign_in_error
from desktop_app.core.auth.limits import send_capped
from desktop_app.core.auth.provider import RecordStorage, is_secure_endpoint

RENEWAL_TIMEOUT_S: Final = 30.0

SessionObserver = Callable[[httpx2.Response, str | None], None]
"""Told how each session request ended: the response, and why the stored sign-in was given up (if it was)."""


class SessionAuth:
    """`_auth_flow` for a session: silent renewal only (see the module docstring); mixed in first."""

    context: OAuthContext
    storage: RecordStorage
    _initialized: bool
    renewal_failure: str | None = None
    """Why the last silent renewal failed, in one line."""

    def _session_setup(self, observer: SessionObserver) -> None:
        self._observer = observer

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        context = self.context
        async with context.lock:
            if not self._initialized:
                await self._initialize()  # type: ignore[attr-defined]
            context.protocol_version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
            renewed: bool | None = None
            if context.current_tokens is not None and not context.is_token_valid():
                renewed = await self._renew()
            sent = self._attach(request)
        response = yield request
        given_up = self.renewal_failure if renewed is False else None
        if response.status_code == 401 and sent is not None and renewed is None:
            # Refresh on a 401 before asking the user again; the SDK starts a whole new sign-in.
            async with context.lock:
                current = context.current_tokens.access_token if context.current_tokens else None
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
        self._observer(response, given_up)

    def _attach(self, request: httpx2.Request) -> str | None:
        tokens = self.context.current_tokens
        if tokens is None or not tokens.access_token:
            return None
        request.headers["Authorization"] = f"Bearer {tokens.access_token}"
        return tokens.access_token

    def reload(self, record: AuthRecord) -> None:
        """Use a new sign-in (a step-up's) from the next request on."""
        self.storage.record = record
        self._initialized = False

    async def _renew(self) -> bool:
        """A new access token without the user: the refresh grant, or client credentials again."""
        context = self.context
        try:
            tokens = context.current_tokens
            if tokens is not None and tokens.refresh_token and context.client_info is not None:
                response = await _send_aside(await self._refresh_token())  # type: ignore[attr-defined]
                if await self._handle_refresh_response(response):  # type: ignore[attr-defined]
                    return True
                self.renewal_failure = "the sign-in has expired or was revoked"
            elif isinstance(self, ClientCredentialsOAuthProvider | PrivateKeyJWTOAuthProvider) and (
                context.oauth_metadata is not None
            ):
                exchange = await self._perform_authorization()
                await self._handle_token_response(await _send_aside(exchange))
                return True
            else:
                self.renewal_failure = "the sign-in has expired"
        except Exception as exc:  # a renewal may fail; it must never break the transport
            self.renewal_failure = f"could not renew the sign-in: {describe_sign_in_error(exc)}"
        context.clear_tokens()
        self.storage.forget_tokens()
        return False


async def _send_aside(request: httpx2.Request) -> httpx2.Response:
    """Send a token request on a client of its own (never through the MCP transport)."""
    if not is_secure_endpoint(str(request.url)):
        raise SignInError(f"refusing to send credentials to {request.url.host} over plain HTTP")
    async with httpx2.AsyncClient(timeout=RENEWAL_TIMEOUT_S) as http:
        return await send_capped(http, request)

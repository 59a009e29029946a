"""What a real connection meets, without a token: where a sign-in learns what the server asks for.

A sign-in started by the user (`mcp-desk login`, a Sign in button before any refusal) needs the
server's refusal: its `WWW-Authenticate` names the metadata and the scopes. A made-up request is
not enough, since a server may check the session or the protocol version first and answer 400,
losing the hints. So the SDK's own handshake for this server runs (its transport, protocol mode
and headers) and the first 401, or 403 asking for more scopes, is kept with the request that met
it; nothing after that refusal is sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Final

import httpx2
from mcp import Client
from mcp_types import Implementation

from desktop_app import __version__
from desktop_app.core.auth.errors import Challenge, SignInError
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_errors import transport_failure
from desktop_app.core.transports import open_transport
from desktop_app.core.watched_streams import TransportHooks

PROBE_CLIENT: Final = Implementation(name="mcp-desk", title="MCP Desk", version=__version__)


@dataclass(frozen=True)
class Refusal:
    """The server's refusal and the request that met it (the sign-in's flow starts from both)."""

    challenge: Challenge
    request: httpx2.Request


class _Refused(httpx2.TransportError):
    """Raised for any request after the refusal, so the handshake stops there."""


class _FirstRefusal(httpx2.Auth):
    """Lets requests go without a token until one is refused, and keeps that refusal."""

    def __init__(self) -> None:
        self.refusal: Refusal | None = None
        self.first: httpx2.Request | None = None

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self.refusal is not None:
            raise _Refused("the server refused an earlier request", request=request)
        self.first = self.first or request
        response = yield request
        challenge = Challenge.of(response)
        if self.refusal is None and (response.status_code == 401 or challenge.step_up):
            self.refusal = Refusal(challenge, request)


async def first_refusal(config: ServerConfig) -> Refusal:
    """The refusal of the first request a real connection to `config` (placeholders resolved) makes.

    A server that lets the handshake through gets a bare 401 (sign in anyway, discovering from the
    well-known addresses). Raises `SignInError` when the server cannot be reached.
    """
    catcher = _FirstRefusal()
    hooks = TransportHooks(
        on_stderr=_ignore,
        on_garbage=_ignore,
        on_closed=_ignore,
        on_bad_bytes=_ignore,
        on_unsolicited=_ignore,
        auth=catcher,
    )
    failure: BaseException | None = None
    try:
        async with asyncio.timeout(config.timeout):
            async with Client(
                open_transport(config, hooks),
                mode=config.protocol,
                read_timeout_seconds=config.timeout,
                client_info=PROBE_CLIENT,
            ):
                pass
    except Exception as exc:  # the handshake fails once refused; only an unreachable server matters here
        failure = exc
    if catcher.refusal is not None:
        return catcher.refusal
    transport = _transport_error(failure)
    if transport is not None:
        raise SignInError(f"cannot reach the server ({transport_failure(transport)})") from failure
    request = catcher.first or httpx2.Request("POST", config.url or "")
    return Refusal(Challenge(401), request)


def _transport_error(exc: BaseException | None) -> httpx2.TransportError | None:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, httpx2.TransportError) and not isinstance(exc, _Refused):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def _ignore(*_args: object) -> None:
    pass

"""Where the browser lands after signing in: a one-shot HTTP listener on 127.0.0.1.

RFC 8252 loopback redirect: an ephemeral port (or a fixed one for clients registered with an
exact redirect URI). Any local process can reach that port, so only the response to this
sign-in's authorization request (its `state`, carrying a code or an error) is taken, and the
browser gets a small page saying it can be closed; anything else gets a 400 "not this sign-in"
page and the listener keeps waiting, so a forged callback can neither end nor cancel the sign-in.
Where the browser cannot reach this machine (over SSH, on another computer), the user pastes the
address the browser ended on instead (`accept_pasted`), held to the same checks.
The task that signs in opens the listener with `async with` and closes it, however it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import logging
from dataclasses import dataclass
from types import TracebackType
from typing import Final, Self
from urllib.parse import parse_qs, urlsplit

import h11

from desktop_app.core.auth.doctor import Step
from desktop_app.core.auth.errors import SignInCancelled, SignInError

log = logging.getLogger(__name__)

LOOPBACK: Final = "127.0.0.1"
CALLBACK_PATH: Final = "/callback"
_MAX_REQUEST_BYTES: Final = 64 * 1024
_READ_TIMEOUT_S: Final = 10.0

_PAGE: Final = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MCP Desk</title>
<style>
 body {{ font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328;
        background: #f6f7f9; display: flex; min-height: 90vh; align-items: center; justify-content: center; }}
 main {{ background: #fff; border: 1px solid #d8dce2; border-radius: 10px; padding: 28px 36px; max-width: 420px; }}
 h1 {{ font-size: 18px; margin: 0 0 8px; }} p {{ margin: 0; color: #57606a; }}
</style></head>
<body><main><h1>{title}</h1><p>{text}</p></main></body></html>
"""
SIGNED_IN_PAGE: Final = _PAGE.format(
    title="Signed in", text="MCP Desk has your sign-in. You can close this tab and go back to the app."
)
FAILED_PAGE: Final = _PAGE.format(
    title="Sign-in did not complete", text="You can close this tab; MCP Desk says what happened."
)
NOT_THIS_PAGE: Final = _PAGE.format(
    title="Not this sign-in",
    text="This is not the answer MCP Desk is waiting for, so it was ignored. You can close this tab.",
)


@dataclass(frozen=True)
class CallbackParams:
    """The authorization response as the browser delivered it (RFC 6749 §4.1.2, RFC 9207 `iss`)."""

    code: str | None = None
    state: str | None = None
    iss: str | None = None
    error: str | None = None
    error_description: str | None = None


class LoopbackListener:
    """Receives one authorization response on `redirect_uri`."""

    def __init__(self, port: int | None = None, *, required: bool = False) -> None:
        """`port` is tried first; when it is busy an ephemeral port is used instead, unless `required`."""
        self._wanted = port
        self._required = required
        self._server: asyncio.Server | None = None
        self._state: bytes | None = None
        self._port = 0
        self._result: asyncio.Future[CallbackParams] = asyncio.get_running_loop().create_future()

    @property
    def redirect_uri(self) -> str:
        return f"http://{LOOPBACK}:{self._port}{CALLBACK_PATH}"

    async def __aenter__(self) -> Self:
        try:
            self._server = await asyncio.start_server(self._serve, LOOPBACK, self._wanted or 0)
        except OSError as exc:
            if self._wanted is None or exc.errno != errno.EADDRINUSE:
                raise SignInError(f"cannot listen for the sign-in on {LOOPBACK}: {exc.strerror or exc}") from exc
            if self._required:
                raise SignInError(f"port {self._wanted}, where this client's sign-in must return, is in use") from exc
            self._server = await asyncio.start_server(self._serve, LOOPBACK, 0)
        self._port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self._result.done():
            self._result.cancel()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    await self._server.wait_closed()

    def expect_response_to(self, authorization_url: str) -> None:
        """Take only the browser's return from `authorization_url`: the `state` it carries must come back."""
        state = parse_qs(urlsplit(authorization_url).query).get("state")
        if not state or not state[0]:
            raise SignInError("the authorization request was made without a state; refusing to wait for its answer")
        self._state = state[0].encode()

    def accept_pasted(self, address: str) -> None:
        """Take the browser's final address pasted by the user (the browser could not reach this machine).

        It is held to what the listener holds a request to: this redirect URI, this sign-in's state,
        a code or an error. Raises `SignInError` saying why an address is not taken.
        """
        parts = urlsplit(address.strip())
        expected = urlsplit(self.redirect_uri)
        if self._state is None:
            raise SignInError("the sign-in page has not been shown yet; nothing to paste", step=Step.BROWSER)
        if parts.scheme != expected.scheme or parts.netloc != expected.netloc or parts.path != expected.path:
            raise SignInError(
                f"that is not the address the sign-in returns to ({self.redirect_uri}?…); paste the browser's "
                "whole address bar",
                step=Step.BROWSER,
            )
        params = _callback_params(parts.query)
        if not self._answers_this_sign_in(params):
            raise SignInError("that address is not the answer to this sign-in (its state differs)", step=Step.BROWSER)
        if self._result.done():
            raise SignInError("this sign-in already has its answer", step=Step.BROWSER)
        self._result.set_result(params)

    async def wait(self, timeout: float | None) -> CallbackParams:
        """The authorization response; `SignInCancelled` when none comes within `timeout` seconds."""
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(self._result)
        except TimeoutError:
            minutes = f"{timeout / 60:g} minutes" if timeout and timeout >= 60 else f"{timeout:g} s"
            raise SignInCancelled(
                f"the browser did not come back within {minutes}; sign-in cancelled", step=Step.BROWSER
            ) from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_REQUEST_BYTES)
        try:
            target = await _read_target(connection, reader)
            if target is None:
                return
            parts = urlsplit(target)
            params = _callback_params(parts.query)
            if parts.path != CALLBACK_PATH or self._result.done() or not self._answers_this_sign_in(params):
                log.info("loopback listener: ignored a request that is not this sign-in's response")
                await _respond(connection, writer, 400, NOT_THIS_PAGE)
                return
            await _respond(connection, writer, 200, SIGNED_IN_PAGE if params.code and not params.error else FAILED_PAGE)
            if not self._result.done():  # the same response twice at once, from the browser retrying
                self._result.set_result(params)
        except (OSError, h11.ProtocolError, TimeoutError) as exc:
            log.debug("loopback listener: %s", exc)
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    def _answers_this_sign_in(self, params: CallbackParams) -> bool:
        """The response to the authorization request under way: its state, and a code or an error."""
        if self._state is None or params.state is None or not (params.code or params.error):
            return False
        return hmac.compare_digest(params.state.encode(), self._state)


def _callback_params(query: str) -> CallbackParams:
    values = {key: items[0] for key, items in parse_qs(query).items()}
    return CallbackParams(
        code=values.get("code"),
        state=values.get("state"),
        iss=values.get("iss"),
        error=values.get("error"),
        error_description=values.get("error_description"),
    )


async def _read_target(connection: h11.Connection, reader: asyncio.StreamReader) -> str | None:
    """The request target of one HTTP/1.1 GET (h11 parses it), or None for anything else."""
    async with asyncio.timeout(_READ_TIMEOUT_S):
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(await reader.read(8192))
                continue
            if isinstance(event, h11.Request) and event.method == b"GET":
                return event.target.decode("ascii", "replace")
            return None


async def _respond(connection: h11.Connection, writer: asyncio.StreamWriter, status: int, page: str) -> None:
    body = page.encode()
    headers = [
        (b"Content-Type", b"text/html; charset=utf-8"),
        (b"Content-Security-Policy", b"default-src 'none'; style-src 'unsafe-inline'"),
        (b"Content-Length", str(len(body)).encode()),
        (b"Cache-Control", b"no-store"),
        (b"Connection", b"close"),
    ]
    writer.write(connection.send(h11.Response(status_code=status, headers=headers)) or b"")
    writer.write(connection.send(h11.Data(data=body)) or b"")
    writer.write(connection.send(h11.EndOfMessage()) or b"")
    await writer.drain()

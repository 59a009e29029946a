"""How much an authorization server may send: answers read as streams and cut off past a cap.

Metadata, registration and token answers are small JSON documents, and a token is a header the
app sends with every request. A server that answers with megabytes is broken or hostile: its
answer is read up to `MAX_ANSWER_BYTES` and the connection dropped there, and a token longer
than `MAX_TOKEN_CHARS` is refused before anything is stored.
"""

from __future__ import annotations

import contextlib
from typing import Final
from urllib.parse import urlsplit

import httpx2
from mcp.shared.auth import OAuthToken

from desktop_app.core.auth.doctor import Step
from desktop_app.core.auth.errors import SignInError

MAX_ANSWER_BYTES: Final = 1024 * 1024
MAX_TOKEN_CHARS: Final = 16 * 1024


async def send_capped(http: httpx2.AsyncClient, request: httpx2.Request) -> httpx2.Response:
    """`request`'s answer, read whole; `SignInError` once it passes `MAX_ANSWER_BYTES`."""
    # Asked uncompressed, so the bytes counted are the bytes kept (a small compressed answer can
    # expand a thousandfold in one step).
    request.headers["Accept-Encoding"] = "identity"
    response = await http.send(request, stream=True)
    try:
        body = await _read(response)
    finally:
        await response.aclose()
    return httpx2.Response(response.status_code, headers=response.headers, content=body, request=request)


async def _read(response: httpx2.Response) -> bytes:
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise _too_large(response)
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise SignInError(
            f"the answer from {_where(response)} came compressed ({encoding}) though asked not to be; refusing it"
        )
    body = bytearray()
    async with contextlib.aclosing(response.aiter_raw()) as chunks:  # ended in this task, even when cut off
        async for chunk in chunks:
            body += chunk
            if len(body) > MAX_ANSWER_BYTES:
                raise _too_large(response)
    return bytes(body)


def check_token_sizes(tokens: OAuthToken) -> None:
    """Refuse tokens no server needs (`SignInError`): each is kept, and sent with every request."""
    for what, value in (
        ("an access token", tokens.access_token),
        ("a refresh token", tokens.refresh_token),
        ("a scope", tokens.scope),
    ):
        if value is not None and len(value) > MAX_TOKEN_CHARS:
            raise SignInError(
                f"the authorization server issued {what} of {_size(len(value))} "
                f"(MCP Desk keeps at most {_size(MAX_TOKEN_CHARS)}); refusing it",
                step=Step.TOKEN,
            )


def _too_large(response: httpx2.Response) -> SignInError:
    return SignInError(f"the answer from {_where(response)} is larger than {_size(MAX_ANSWER_BYTES)}; refusing it")


def _where(response: httpx2.Response) -> str:
    parts = urlsplit(str(response.request.url))
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def _size(count: int) -> str:
    return f"{count / 1024 / 1024:.0f} MiB" if count >= 1024 * 1024 else f"{count / 1024:.0f} KiB"

"""The loopback listener the browser returns to: one response taken, a calm page, then closed."""

from __future__ import annotations

import socket

import httpx2
import pytest

from desktop_app.core.auth.errors import SignInCancelled, SignInError
from desktop_app.core.auth.loopback import CallbackParams, LoopbackListener

pytestmark = pytest.mark.anyio


async def test_takes_the_first_callback_and_answers_with_a_page() -> None:
    async with LoopbackListener() as listener, httpx2.AsyncClient() as http:
        assert listener.redirect_uri.startswith("http://127.0.0.1:") and listener.redirect_uri.endswith("/callback")
        stray = await http.get(listener.redirect_uri.replace("/callback", "/favicon.ico"))
        assert stray.status_code == 404
        page = await http.get(listener.redirect_uri, params={"code": "c0de", "state": "st", "iss": "https://as"})
        assert page.status_code == 200 and "Signed in" in page.text and "close this tab" in page.text
        assert page.headers["cache-control"] == "no-store"
        assert await listener.wait(1) == CallbackParams(code="c0de", state="st", iss="https://as")
        again = await http.get(listener.redirect_uri, params={"code": "other"})
        assert again.status_code == 404  # one sign-in, one response
        port = int(listener.redirect_uri.split(":")[2].split("/")[0])
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


async def test_an_error_response_gets_a_neutral_page() -> None:
    async with LoopbackListener() as listener, httpx2.AsyncClient() as http:
        page = await http.get(
            listener.redirect_uri, params={"error": "access_denied", "error_description": "<b>no</b>"}
        )
        assert "did not complete" in page.text and "<b>no</b>" not in page.text
        assert (await listener.wait(1)).error == "access_denied"


async def test_a_busy_preferred_port_falls_back_unless_required() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        async with LoopbackListener(port) as listener:
            assert f":{port}/" not in listener.redirect_uri
        with pytest.raises(SignInError, match=f"port {port}"):
            async with LoopbackListener(port, required=True):
                pass


async def test_waiting_too_long_is_a_cancellation() -> None:
    async with LoopbackListener() as listener:
        with pytest.raises(SignInCancelled, match="did not come back"):
            await listener.wait(0.2)

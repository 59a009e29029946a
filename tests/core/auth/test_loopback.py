"""The loopback listener the browser returns to: only this sign-in's response taken, a calm page, then closed."""

from __future__ import annotations

import socket

import httpx2
import pytest

from desktop_app.core.auth.errors import SignInCancelled, SignInError
from desktop_app.core.auth.loopback import CallbackParams, LoopbackListener

pytestmark = pytest.mark.anyio

AUTHORIZATION_URL = "https://as.example/authorize?response_type=code&state=st-123&client_id=c"


async def test_takes_the_matching_callback_and_answers_with_a_page() -> None:
    async with LoopbackListener() as listener, httpx2.AsyncClient() as http:
        assert listener.redirect_uri.startswith("http://127.0.0.1:") and listener.redirect_uri.endswith("/callback")
        listener.expect_response_to(AUTHORIZATION_URL)
        page = await http.get(listener.redirect_uri, params={"code": "c0de", "state": "st-123", "iss": "https://as"})
        assert page.status_code == 200 and "Signed in" in page.text and "close this tab" in page.text
        assert page.headers["cache-control"] == "no-store"
        assert await listener.wait(1) == CallbackParams(code="c0de", state="st-123", iss="https://as")
        again = await http.get(listener.redirect_uri, params={"code": "other", "state": "st-123"})
        assert again.status_code == 400 and "Signed in" not in again.text  # one sign-in, one response
        port = int(listener.redirect_uri.split(":")[2].split("/")[0])
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


async def test_forged_callbacks_get_400_and_the_listener_keeps_waiting() -> None:
    async with LoopbackListener() as listener, httpx2.AsyncClient() as http:
        uri = listener.redirect_uri
        early = await http.get(uri, params={"code": "x", "state": "st-123"})  # before any sign-in began
        listener.expect_response_to(AUTHORIZATION_URL)
        forged = [
            early,
            await http.get(uri, params={"code": "x", "state": "st-124"}),
            await http.get(uri, params={"code": "x", "state": "ст-123"}),  # not even ASCII
            await http.get(uri, params={"code": "x"}),
            await http.get(uri, params={"state": "st-123"}),  # the right state, but neither code nor error
            await http.get(uri),
            await http.get(uri.replace("/callback", "/favicon.ico"), params={"code": "x", "state": "st-123"}),
        ]
        for response in forged:
            assert response.status_code == 400
            assert "Not this sign-in" in response.text and "Signed in" not in response.text
            assert response.headers["cache-control"] == "no-store"
        real = await http.get(uri, params={"code": "c0de", "state": "st-123"})
        assert real.status_code == 200 and "Signed in" in real.text
        assert await listener.wait(1) == CallbackParams(code="c0de", state="st-123")


async def test_an_error_response_for_this_sign_in_ends_it_with_a_neutral_page() -> None:
    async with LoopbackListener() as listener, httpx2.AsyncClient() as http:
        listener.expect_response_to(AUTHORIZATION_URL)
        stray = await http.get(listener.redirect_uri, params={"error": "access_denied", "state": "other"})
        assert stray.status_code == 400  # a forged refusal cannot cancel the sign-in either
        page = await http.get(
            listener.redirect_uri,
            params={"error": "access_denied", "error_description": "<b>no</b>", "state": "st-123"},
        )
        assert "did not complete" in page.text and "<b>no</b>" not in page.text
        assert (await listener.wait(1)).error == "access_denied"


async def test_an_authorization_url_without_state_is_refused() -> None:
    async with LoopbackListener() as listener:
        with pytest.raises(SignInError, match="without a state"):
            listener.expect_response_to("https://as.example/authorize?response_type=code")


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

"""The paste fallback: the browser is on another computer and cannot reach the loopback listener, so
the user pastes the address it ended on. What is pasted meets the same checks as a redirect."""

from __future__ import annotations

import pytest

from desktop_app.core.auth.errors import SignInError
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_status import ServerState
from tests.core.auth.conftest import ServerFactory, remote
from tests.core.auth.hosted import hosted
from tests.hosting import eventually
from tests.servers.oauth_browsers import ElsewhereBrowser, query_of

pytestmark = pytest.mark.anyio


async def test_the_address_pasted_back_signs_in(oauth_server: ServerFactory, secrets: SecretStore) -> None:
    browser = ElsewhereBrowser()
    with oauth_server() as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            auth = host.connection("remote").auth
            pages: list[str | None] = []
            auth.paste.watch(pages.append)
            with pytest.raises(SignInError, match="no sign-in is waiting"):
                auth.paste.paste(f"http://127.0.0.1:1/callback?code=early&state=x&iss={server.issuer}")
            signing_in = auth.start_sign_in()
            await eventually(lambda: bool(browser.ended_on), what="the browser elsewhere to end on the redirect")
            ended_on = browser.ended_on[0]
            assert pages == [browser.opened[0]]  # the window is told which page to offer

            redirect_uri = query_of(browser.opened[0])["redirect_uri"]
            wrong_state = ended_on.replace(query_of(ended_on)["state"], "forged")
            with pytest.raises(SignInError, match="its state differs"):
                auth.paste.paste(wrong_state)
            with pytest.raises(SignInError, match="not the address the sign-in returns to"):
                auth.paste.paste(ended_on.replace(redirect_uri.rsplit(":", 1)[0], "http://127.0.0.2"))
            assert not signing_in.done()  # refused pastes neither end nor cancel the sign-in

            auth.paste.paste(f"  {ended_on}\n")
            assert await signing_in is None
            assert (await host.connection("remote").wait_settled(30)).state is ServerState.READY
            assert pages[-1] is None and auth.paste.page is None
    assert server.requests.token[-1]["grant_type"] == "authorization_code"


async def test_a_pasted_answer_from_another_issuer_is_refused(
    oauth_server: ServerFactory, secrets: SecretStore
) -> None:
    browser = ElsewhereBrowser()
    with oauth_server(iss_override="https://evil.example") as server:
        async with hosted(secrets, browser, remote(server)) as (host, _):
            auth = host.connection("remote").auth
            signing_in = auth.start_sign_in()
            await eventually(lambda: bool(browser.ended_on), what="the browser elsewhere")
            auth.paste.paste(browser.ended_on[0])  # its state is right; its issuer is not
            failure = await signing_in
            assert failure == "the sign-in came back from another authorization server than the one asked"
            assert host.connection("remote").status.state is ServerState.NEEDS_SIGN_IN
    assert server.requests.token == []  # the code never left MCP Desk

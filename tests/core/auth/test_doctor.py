"""The sign-in doctor against authorization servers broken one way each: it names the step that broke,
with the address, the HTTP status and the server's own words, and shows no secret."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.doctor import Diagnosis, Step
from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.flow import sign_in
from desktop_app.core.auth.masking import MASK
from tests.core.auth.conftest import ServerFactory, remote
from tests.servers.oauth_server import FollowingBrowser, OAuthTestServer

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Broken:
    options: dict[str, object]
    step: Step
    where: str
    """Which address the failing line names: "prm", "register", "token", "authorize"."""
    status: int | None
    words: str


BROKEN = {
    "no iss": Broken({"send_iss": False}, Step.BROWSER, "authorize", None, "did not name its issuer"),
    "wrong resource": Broken(
        {"resource_override": "http://127.0.0.1:1/elsewhere", "prm": "path"},
        Step.RESOURCE_METADATA,
        "prm",
        200,
        "metadata is for another resource (http://127.0.0.1:1/elsewhere)",
    ),
    "registration refused": Broken(
        {"registration_refused": True},
        Step.CLIENT,
        "register",
        400,
        "invalid_client_metadata: registration is closed on this server",
    ),
    "registration off": Broken({"dcr": False}, Step.CLIENT, "", None, "offers no registration"),
    "token endpoint 500": Broken(
        {"token_status": 500},
        Step.TOKEN,
        "token",
        500,
        "server_error: the token service is down for maintenance",
    ),
    "redirect URI refused": Broken(
        {"redirect_refused": True},
        Step.BROWSER,
        "authorize",
        400,
        "invalid_request: redirect_uri is not registered for this client",
    ),
}


def address(server: OAuthTestServer, where: str) -> str:
    return {
        "prm": f"{server.rs_origin}/.well-known/oauth-protected-resource/mcp",
        "register": f"{server.issuer}/register",
        "token": f"{server.issuer}/token",
        "authorize": f"{server.issuer}/authorize",
        "": "",
    }[where]


@pytest.mark.parametrize("fault", BROKEN)
async def test_the_doctor_names_the_broken_step(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser, fault: str
) -> None:
    broken = BROKEN[fault]
    diagnosis = Diagnosis()
    with oauth_server(**broken.options) as server, pytest.raises(SignInError) as failed:
        await sign_in(remote(server), credentials, browser, diagnosis=diagnosis, browser_timeout=2)
    finding = diagnosis.failed
    assert finding is not None, diagnosis.lines()
    assert finding.step is broken.step, diagnosis.lines()
    assert finding.url.startswith(address(server, broken.where))
    assert finding.status == broken.status
    line = finding.line()
    assert broken.words in line and "\n" not in line and line.isprintable()
    assert line.startswith(f"✗ {broken.step}")
    assert str(failed.value) in line or broken.words in str(failed.value)
    steps = [f.step for f in diagnosis.findings]
    assert steps[-1] is broken.step  # nothing is claimed after the step that broke
    assert all(f.ok is not False for f in diagnosis.findings[:-1]), diagnosis.lines()
    assert credentials.load(server.url) is None


async def test_the_doctor_shows_every_step_of_a_good_sign_in_and_masks_what_is_secret(
    oauth_server: ServerFactory, credentials: CredentialStore, browser: FollowingBrowser
) -> None:
    diagnosis = Diagnosis()
    with oauth_server(prm="path") as server:
        record = await sign_in(remote(server), credentials, browser, diagnosis=diagnosis)
    assert [(f.step, f.ok) for f in diagnosis.findings] == [
        (Step.RESOURCE_METADATA, True),
        (Step.SERVER_METADATA, True),
        (Step.CLIENT, True),
        (Step.BROWSER, True),
        (Step.TOKEN, True),
    ]
    client = diagnosis.finding(Step.CLIENT)
    assert client is not None and client.how == "registration" and client.status == 201
    assert record.tokens is not None and record.client is not None
    text = diagnosis.text()
    secrets = [record.tokens.access_token, record.tokens.refresh_token, record.client.client_secret]
    assert all(secret and secret not in text for secret in secrets)
    code = server.requests.token[-1]["code"]
    assert code not in text and MASK in text
    assert '"access_token": "•••"' in text  # the token answer is shown, its token not

"""`mcp-desk login`, `logout` and `run` against a real OAuth-protected server, as a user runs them.

The commands run in-process through `main(argv)`, the user at the terminal played by the test: it opens
each page the command printed on stderr (or pastes the address the browser ended on into stdin). One
login runs as its own process (`mcp-desk login` itself, its exit code, what it prints where), and
the commands after it find the sign-in it stored.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest

from desktop_app.__main__ import main
from desktop_app.cli import login as cli_login
from desktop_app.cli.login import PrintedBrowser, login_command
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.auth.idp import IdentityProviderSettings
from desktop_app.core.paths import SETTINGS_FILENAME
from tests.core.auth.organisation_idp import CLIENT_ID, organisation
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text
from tests.servers.identity_provider import IDP_CLIENT_ID
from tests.servers.oauth_browsers import browse_elsewhere
from tests.servers.oauth_server import ADMIN_SCOPE, OAuthOptions, OAuthTestServer, forge_callbacks

pytestmark = LITELLM_WARNINGS
ROOT = Path(__file__).resolve().parents[2]

Login = Callable[..., tuple[int, str, str]]
"""`login(config, *options, forged=None, pasted=None)`: the exit code, stdout and stderr."""


@pytest.fixture
def server() -> Iterator[OAuthTestServer]:
    with OAuthTestServer(OAuthOptions()).running() as running:
        yield running


@pytest.fixture
def env(home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A user of their own: config, data (the secret store) and no real browser; set for the commands run
    in-process, and the whole environment for the one run as a process."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("LITELLM_OFFLINE_MODE", "true")
    return dict(os.environ)


@pytest.fixture
def config(tmp_path: Path, server: OAuthTestServer) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"tracker": {"type": "http", "url": server.url}}}))
    return path


def printed_page(err: str) -> str:
    """The page to open, as printed (--verbose's lines are indented more)."""
    return [line.strip() for line in err.splitlines() if line.startswith("  http://")][-1]


@pytest.fixture
def login(env: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Login:
    """`mcp-desk login tracker` in-process, with the user opening each printed URL (the page approves at once).

    With `forged`, another local process sends forged callbacks to the listener first (kept there).
    With `pasted`, the browser is on another computer: these lines are pasted into stdin first, then
    the address the browser ended on.
    """

    def run(
        config: Path, *options: str, forged: list[httpx2.Response] | None = None, pasted: list[str] | None = None
    ) -> tuple[int, str, str]:
        printed = {"out": "", "err": ""}

        def read() -> str:
            captured = capsys.readouterr()
            printed["out"] += captured.out
            printed["err"] += captured.err
            return captured.err

        keyboard = None
        if pasted is not None:  # stdin is a pipe the user pastes into, as from a terminal
            read_end, write_end = os.pipe()
            monkeypatch.setattr(sys, "stdin", open(read_end, encoding="utf-8"))  # noqa: SIM115
            keyboard = open(write_end, "w", encoding="utf-8")  # noqa: SIM115

        class TheUser(PrintedBrowser):
            """The command prints the page; the user reads it off stderr and opens it."""

            async def open(self, url: str) -> None:
                await super().open(url)
                page = printed_page(read())
                if forged is not None:
                    forged.extend(await forge_callbacks(page))
                if keyboard is not None:
                    ended_on = await browse_elsewhere(page)
                    keyboard.write("".join(f"{line}\n" for line in [*(pasted or []), ended_on]))
                    keyboard.flush()
                else:
                    async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as http:
                        await http.get(page)

        monkeypatch.setattr(cli_login, "PrintedBrowser", TheUser)
        try:
            code = main(["login", "tracker", "--config", str(config), *options])
        finally:
            if keyboard is not None:
                keyboard.close()  # end of input: the command's paste reader ends
                for thread in threading.enumerate():
                    if thread.name == "login-paste":
                        thread.join(10)
                sys.stdin.close()
        read()
        return code, printed["out"], printed["err"]

    return run


def login_in_a_process(env: dict[str, str], config: Path) -> tuple[int, str, str]:
    """The real `mcp-desk login tracker` as its own process, the user opening the URL it prints on stderr."""
    command = [sys.executable, "-m", "desktop_app", "login", "tracker", "--config", str(config)]
    with subprocess.Popen(
        command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stderr is not None and proc.stdout is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("  http://"):  # the page to open
                httpx2.get(line.strip(), follow_redirects=True, timeout=10)
        out = proc.stdout.read()
        return proc.wait(60), out, "".join(lines)


def steps(err: str) -> list[str]:
    """The doctor's lines: one per step, ✓ or ✗."""
    return [line for line in err.splitlines() if line[:2] in ("✓ ", "✗ ", "– ")]


def test_run_exits_4_until_login_then_uses_the_stored_sign_in(
    env: dict[str, str], config: Path, server: OAuthTestServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The login is the real `mcp-desk login`, a process of its own (this file's one): its exit code, the page
    and the wait on stderr, only the answer on stdout; what it stored, `run` and `logout` find."""
    with ScriptedLLM() as llm:
        llm.queue(text("Signed-in answer."))
        run_args = ["run", "hello", "--config", str(config), "--model", "openai/scripted", "--api-base", llm.url]
        assert main(run_args) == 4
        assert capsys.readouterr().err == "mcp-desk run: server 'tracker' needs sign-in: run 'mcp-desk login tracker'\n"

        code, out, err = login_in_a_process(env, config)
        assert code == 0, err
        assert out == "Signed in to tracker.\n"
        assert "Open this page to sign in:" in err and "Waiting for the browser" in err

        transcript = config.with_name("transcript.json")
        code = main([*run_args, "--transcript", str(transcript)])
        after = capsys.readouterr()
        assert code == 0, after.err
        assert after.out == "Signed-in answer.\n"
    token = server.requests.token[-1]
    assert token["grant_type"] == "authorization_code" and token["resource"] == server.url
    # The tokens went to the secret store (a file here, with no system keyring), never to the config.
    access = next(iter(server.access_tokens))
    refresh = next(iter(server.refresh_tokens))
    for written in (config, transcript):
        assert access not in written.read_text() and refresh not in written.read_text()

    code = main(["logout", "tracker", "--config", str(config)])
    logout = capsys.readouterr()
    assert code == 0, logout.err
    assert logout.out == "tracker: signed out; the authorization server revoked the tokens.\n"
    assert server.access_tokens == {} and server.refresh_tokens == {}


def test_a_forged_callback_does_not_cancel_the_login(login: Login, config: Path) -> None:
    forged: list[httpx2.Response] = []
    code, out, err = login(config, forged=forged)
    assert code == 0, err
    assert out == "Signed in to tracker.\n"
    assert [response.status_code for response in forged] == [400, 400, 400, 400]
    assert all("Not this sign-in" in response.text and "Signed in" not in response.text for response in forged)


def test_a_60_mb_token_fails_the_login_in_one_line_and_is_not_stored(login: Login, tmp_path: Path) -> None:
    with OAuthTestServer(OAuthOptions(token_size=60 * 1024 * 1024)).running() as hostile:
        path = tmp_path / "hostile.json"
        path.write_text(json.dumps({"mcpServers": {"tracker": {"url": hostile.url}}}))
        code, out, err = login(path)
        (stream,) = hostile.streams
        assert stream.ended.wait(30) and not stream.completed  # the client hung up early
        assert stream.sent < 60 * 1024 * 1024 // 4
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == (
        f"mcp-desk login: the answer from {hostile.as_origin}/token is larger than 1 MiB; refusing it"
    )
    assert not err.startswith("Traceback") and "Traceback" not in err
    stored = [file for file in (tmp_path / "data").rglob("*") if file.is_file()]
    assert all(file.stat().st_size < 64 * 1024 for file in stored)


def test_login_errors_are_one_line(env: dict[str, str], config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert login_command(["nosuch", "--config", str(config)]) == 2
    assert capsys.readouterr().err == "mcp-desk login: no server named 'nosuch' (configured: tracker)\n"
    local = config.with_name("local.json")
    local.write_text(json.dumps({"mcpServers": {"fx": {"command": "x"}}}))
    assert login_command(["fx", "--config", str(local)]) == 2
    assert "'fx' does not sign in" in capsys.readouterr().err


def test_a_failed_login_exits_1_and_names_the_step(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OAuthTestServer(OAuthOptions(registration_refused=True)).running() as refusing:
        path = tmp_path / "refusing.json"
        path.write_text(json.dumps({"mcpServers": {"tracker": {"url": refusing.url}}}))
        code = main(["login", "tracker", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 1
    assert steps(err) == [
        f"✓ protected-resource metadata: GET {refusing.rs_origin}/meta/resource.json → HTTP 200",
        f"✓ authorization-server metadata: GET {refusing.issuer}/.well-known/oauth-authorization-server → HTTP 200",
        f"✗ client identity (registration): POST {refusing.issuer}/register → HTTP 400 — the authorization server "
        "refused to register MCP Desk (invalid_client_metadata: registration is closed on this server)",
    ]
    assert err.splitlines()[-1].startswith("mcp-desk login: the authorization server refused to register MCP Desk")


def test_a_token_endpoint_that_fails_is_named_with_its_words_and_verbose_masks_secrets(
    login: Login, tmp_path: Path
) -> None:
    with OAuthTestServer(OAuthOptions(token_status=500)).running() as failing:
        path = tmp_path / "failing.json"
        path.write_text(json.dumps({"mcpServers": {"tracker": {"url": failing.url}}}))
        code, out, err = login(path, "--verbose")
        sent_code = failing.requests.token[-1]["code"]
        client_secret = next(iter(failing.clients.values())).secret
    assert code == 1 and out == ""
    assert [line.split(":")[0] for line in steps(err)] == [
        "✓ protected-resource metadata",
        "✓ authorization-server metadata",
        "✓ client identity (registration)",
        "✓ browser step",
        "✗ token request (authorization code)",
    ]
    assert steps(err)[-1] == (
        f"✗ token request (authorization code): POST {failing.issuer}/token → HTTP 500 — the authorization "
        "server refused the token request (server_error: the token service is down for maintenance)"
    )
    # --verbose shows what each step got back, credentials masked.
    assert '"client_secret": "•••"' in err and '"error": "server_error"' in err
    assert client_secret and client_secret not in err and sent_code not in err


def test_login_asks_the_server_as_a_connection_would(login: Login, tmp_path: Path) -> None:
    """A server that checks the session before the token refused the old session-less ping with a 400,
    and its 401's hints (where its metadata is) were lost; the handshake's own request gets them."""
    with OAuthTestServer(OAuthOptions(session_first=True, prm="header")).running() as strict:
        path = tmp_path / "strict.json"
        path.write_text(json.dumps({"mcpServers": {"tracker": {"url": strict.url}}}))
        code, out, err = login(path)
        assert code == 0, err
        assert out == "Signed in to tracker.\n"
        assert strict.statuses_of("ping") == []
        assert strict.statuses_of("initialize")[0] == 401  # the refusal that carried the hints
    assert steps(err)[-1].startswith(f"✓ first authorized request: POST {strict.url} → HTTP 200")


def test_login_steps_up_once_when_connecting_needs_more_permissions(login: Login, tmp_path: Path) -> None:
    with OAuthTestServer(OAuthOptions(scoped_methods={"tools/list": ADMIN_SCOPE})).running() as server:
        path = tmp_path / "scoped.json"
        path.write_text(json.dumps({"mcpServers": {"tracker": {"url": server.url}}}))
        code, out, err = login(path)
        assert code == 0, err
        assert out == "Signed in to tracker.\n"
        assert len(server.requests.authorize) == 2
        assert ADMIN_SCOPE in server.requests.authorize[-1]["scope"].split()
        assert server.statuses_of("tools/list") == [403, 200]


def test_login_with_the_browser_on_another_computer(login: Login, config: Path, server: OAuthTestServer) -> None:
    code, out, err = login(config, "--paste", pasted=["http://127.0.0.1:1/callback?code=x&state=y"])
    assert code == 0, err
    assert out == "Signed in to tracker.\n"
    assert "paste it here" in err
    assert "Not taken: that is not the address the sign-in returns to" in err
    assert steps(err)[-2].startswith("✓ token request (authorization code)")
    assert server.requests.token[-1]["grant_type"] == "authorization_code"


def test_login_signs_in_through_the_identity_provider_in_settings(
    env: dict[str, str], tmp_path: Path, login: Login
) -> None:
    """A server set up for the organisation's sign-in: the identity provider comes from Settings."""
    with organisation() as (idp, (server,)):
        save_settings(
            Path(env["XDG_CONFIG_HOME"]) / "mcp-desk" / SETTINGS_FILENAME,
            AppSettings(identity_provider=IdentityProviderSettings(idp.issuer, IDP_CLIENT_ID)),
        )
        oauth = {"grant": "enterprise", "clientId": CLIENT_ID, "clientSecret": "secret-0"}
        path = tmp_path / "corp.json"
        path.write_text(json.dumps({"mcpServers": {"tracker": {"url": server.url, "oauth": oauth}}}))
        code, out, err = login(path)
        assert code == 0, err
        assert out == "Signed in to tracker.\n"
        assert idp.requests.authorize and idp.requests.authorize[0]["client_id"] == IDP_CLIENT_ID
        assert [form["grant_type"] for form in idp.requests.token] == [
            "authorization_code",
            "urn:ietf:params:oauth:grant-type:token-exchange",
        ]

"""`mcp-desk login NAME` and `mcp-desk logout NAME`: sign in to a remote server, or out, without a window.

`login` learns how to sign in from the refusal a real connection meets, prints the authorization
page's URL for the user to open, waits on the loopback listener (or, with `--paste`, also for the
address the browser ended on, pasted on stdin) and stores the result in the secret store, where the
window and `mcp-desk run` find it. Then it connects as they would, so the first request made with
the token is checked too (and a server that wants more permissions to connect gets one step-up).
Every step is printed on stderr with ✓ or ✗, its address, status and the server's words
(`--verbose` adds the answers, credentials masked). Machine-to-machine servers get their token
with no browser. `logout` revokes the tokens where the server supports it and forgets them here.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Final

from desktop_app.core.app_settings import SettingsLoad, default_settings_path, load_settings
from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.doctor import Diagnosis
from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.flow import BROWSER_TIMEOUT_S
from desktop_app.core.auth.idp import SETTINGS_KEY, IdentityProviderSettings
from desktop_app.core.auth.paste import PastedRedirect
from desktop_app.core.auth.server_auth import SignInServices, uses_oauth
from desktop_app.core.auth.sign_out import sign_out
from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import load_config
from desktop_app.core.connection import ServerConnection
from desktop_app.core.events import EventBus
from desktop_app.core.expansion import resolve_server
from desktop_app.core.log_routing import install_logging
from desktop_app.core.paths import data_dir, default_config_path
from desktop_app.core.policy.in_force import policy_in_force
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.secret_store import SecretStore, SecretStoreError, open_secret_store
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
CONNECT_TIMEOUT_S: Final = 60.0

Action = Callable[[argparse.Namespace], Coroutine[Any, Any, str]]


class UsageError(Exception):
    """Bad arguments or configuration: exit 2 with this message."""


class PrintedBrowser:
    """The command line's `BrowserOpener`: the user opens the printed URL in a browser of their choice."""

    def __init__(self, *, paste: bool = False) -> None:
        self._paste = paste

    async def open(self, url: str) -> None:
        if self._paste:
            print(
                f"Open this page in a browser, on any computer:\n\n  {url}\n\n"
                "After you sign in, the browser goes to an address starting with http://127.0.0.1 and may say it "
                "cannot reach it. Copy that whole address from the address bar and paste it here (Enter), or "
                "Ctrl+C to cancel:",
                file=sys.stderr,
            )
        else:
            waiting = "Waiting for the browser… (Ctrl+C cancels)"
            print(f"Open this page to sign in:\n\n  {url}\n\n{waiting}", file=sys.stderr)


class PasteReader:
    """Reads pasted addresses from stdin on a thread of its own and hands them to the sign-in."""

    def __init__(self, paste: PastedRedirect) -> None:
        self._paste = paste
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, name="login-paste", daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            if line.strip():
                self._loop.call_soon_threadsafe(self._deliver, line.strip())

    def _deliver(self, address: str) -> None:
        try:
            self._paste.paste(address)
        except SignInError as exc:
            print(f"Not taken: {exc}. Paste it again:", file=sys.stderr)


def login_command(argv: list[str]) -> int:
    """`mcp-desk login NAME [--config FILE] [--timeout S] [--paste] [--verbose]`."""
    parser = _parser("login", "Sign in to a remote server and keep the sign-in in the secret store.")
    parser.add_argument("--timeout", type=float, default=BROWSER_TIMEOUT_S, metavar="S", help="seconds to wait")
    parser.add_argument(
        "--paste",
        "--no-browser",
        action="store_true",
        help="the browser is on another computer: paste the address it ends on here",
    )
    parser.add_argument("--verbose", action="store_true", help="show each step's answer (credentials masked)")
    return _main(parser, argv, _login)


def logout_command(argv: list[str]) -> int:
    """`mcp-desk logout NAME [--config FILE]`."""
    parser = _parser("logout", "Sign out of a remote server: revoke the tokens where possible, forget them here.")
    return _main(parser, argv, _logout)


def _parser(verb: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"mcp-desk {verb}", description=description)
    parser.add_argument("name", metavar="NAME", help="the server's name in servers.json")
    parser.add_argument("--config", type=Path, help="servers.json to use (default: the user's)")
    parser.add_argument("--debug", action="store_true", help="log details")
    return parser


def _main(parser: argparse.ArgumentParser, argv: list[str], action: Action) -> int:
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code not in (0, None) else EXIT_OK
    install_logging(logging.INFO if args.debug else logging.WARNING)  # secrets redacted, whatever logs them
    prog = parser.prog
    try:
        message = asyncio.run(action(args))
    except UsageError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (SignInError, SecretStoreError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"{prog}: sign-in cancelled", file=sys.stderr)
        return 130
    print(message)
    return EXIT_OK


def _server(args: argparse.Namespace, store: SecretStore | None) -> tuple[ServerConfig, ServerConfig]:
    """The server as configured, and with its placeholders resolved."""
    path = args.config or default_config_path()
    if args.config is not None and not path.is_file():
        raise UsageError(f"config file not found: {path}")
    loaded = load_config(path)
    if loaded.error is not None:
        raise UsageError(f"configuration error: {loaded.error}")
    config = loaded.servers.get(args.name)
    if config is None:
        names = ", ".join(sorted(loaded.servers)) or "none"
        raise UsageError(f"no server named '{args.name}' (configured: {names})")
    try:
        resolved = resolve_server(config, store or _NoSecrets()).config
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if not uses_oauth(resolved):
        raise UsageError(
            f"'{args.name}' does not sign in (a local server, an Authorization header, or \"oauth\": false)"
        )
    return config, resolved


def _store() -> SecretStore:
    try:
        return open_secret_store(data_dir())
    except SecretStoreError as exc:
        raise UsageError(f"the secret store cannot be opened, so a sign-in could not be kept: {exc}") from None


def _identity_provider(store: SecretStore, settings: SettingsLoad) -> IdentityProviderSettings | None:
    """The organisation's identity provider: the managed policy's first, else the one in Settings;
    its `${secret:NAME}` client secret read from the store."""
    try:
        managed = policy_in_force().identity_provider
        if managed is not None:
            return IdentityProviderSettings.from_mapping(managed, source="policy").resolved(store)
        if settings.error is not None and SETTINGS_KEY in settings.error:
            raise ValueError(settings.error)
        idp = settings.settings.identity_provider
        return idp.resolved(store) if idp is not None else None
    except ValueError as exc:
        raise UsageError(f"the identity provider setting cannot be used: {exc}") from None


async def _login(args: argparse.Namespace) -> str:
    store = _store()
    configured, config = _server(args, store)
    loaded = load_settings(default_settings_path())
    services = SignInServices(
        CredentialStore(lambda: store),
        opener=PrintedBrowser(paste=args.paste),
        client_metadata_url=loaded.settings.client_metadata_url or None,
        browser_timeout=args.timeout,
        identity_provider=_identity_provider(store, loaded),
    )
    connection = ServerConnection(
        configured, EventBus(), secrets=store, sign_in=services, policy=RestartPolicy(max_attempts=0)
    )
    diagnosis = Diagnosis()
    connection.auth.verify_first_request(diagnosis)
    if args.paste:
        PasteReader(connection.auth.paste)
    try:
        await _sign_in_and_connect(connection, config, diagnosis)
    finally:
        await connection.stop()
        for line in diagnosis.lines(verbose=args.verbose):
            print(line, file=sys.stderr)
    return f"Signed in to {args.name}."


async def _sign_in_and_connect(connection: ServerConnection, config: ServerConfig, diagnosis: Diagnosis) -> None:
    """Sign in (the server is asked without a token first), then connect with the token, stepping up once."""
    auth = connection.auth
    auth.use(config)
    failure = await auth.sign_in()
    _merge(diagnosis, auth.diagnosis)
    if failure is not None:
        raise SignInError(failure)
    connection.start()
    status = await connection.wait_settled(CONNECT_TIMEOUT_S)
    if status.state is ServerState.NEEDS_SIGN_IN and auth.wants_more_permissions:
        auth.verify_first_request(diagnosis)
        failure = await auth.sign_in()
        _merge(diagnosis, auth.diagnosis)
        if failure is not None:
            raise SignInError(failure)
        status = await connection.wait_settled(CONNECT_TIMEOUT_S)
    if status.state is not ServerState.READY:
        raise SignInError(f"signed in, but the server still does not connect ({status.summary})")


def _merge(into: Diagnosis, latest: Diagnosis | None) -> None:
    if latest is not None and latest is not into:
        for finding in latest.findings:
            into.note(finding)


async def _logout(args: argparse.Namespace) -> str:
    store = _store()
    _, config = _server(args, store)
    assert config.url is not None
    outcome = await sign_out(config.url, config.oauth, CredentialStore(lambda: store))
    return f"{args.name}: {outcome}."


class _NoSecrets:
    def get(self, name: str) -> str | None:
        return None

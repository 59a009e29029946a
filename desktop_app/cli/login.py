"""`mcp-desk login NAME` and `mcp-desk logout NAME`: sign in to a remote server, or out, without a window.

`login` prints the authorization page's URL for the user to open, waits on the loopback
listener, and stores the result in the secret store, where the window and `mcp-desk run` find it.
Machine-to-machine servers (`"grant": "client_credentials"`) get their token with no browser.
`logout` revokes the tokens where the server supports it and forgets them here.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Final

from desktop_app.core.app_settings import default_settings_path, load_settings
from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.flow import BROWSER_TIMEOUT_S, sign_in
from desktop_app.core.auth.server_auth import uses_oauth
from desktop_app.core.auth.sign_out import sign_out
from desktop_app.core.config_file import ConfigError, load_config
from desktop_app.core.expansion import resolve_server
from desktop_app.core.log_routing import install_logging
from desktop_app.core.paths import data_dir, default_config_path
from desktop_app.core.secret_store import SecretStore, SecretStoreError, open_secret_store
from desktop_app.core.server_config import ServerConfig

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2


Action = Callable[[argparse.Namespace], Coroutine[Any, Any, str]]


class UsageError(Exception):
    """Bad arguments or configuration: exit 2 with this message."""


class PrintedBrowser:
    """The command line's `BrowserOpener`: the user opens the printed URL in a browser of their choice."""

    async def open(self, url: str) -> None:
        print(f"Open this page to sign in:\n\n  {url}\n\nWaiting for the browser… (Ctrl+C cancels)", file=sys.stderr)


def login_command(argv: list[str]) -> int:
    """`mcp-desk login NAME [--config FILE] [--timeout S]`."""
    parser = _parser("login", "Sign in to a remote server and keep the sign-in in the secret store.")
    parser.add_argument("--timeout", type=float, default=BROWSER_TIMEOUT_S, metavar="S", help="seconds to wait")
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


def _server(args: argparse.Namespace, store: SecretStore | None) -> ServerConfig:
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
    return resolved


def _store() -> SecretStore:
    try:
        return open_secret_store(data_dir())
    except SecretStoreError as exc:
        raise UsageError(f"the secret store cannot be opened, so a sign-in could not be kept: {exc}") from None


async def _login(args: argparse.Namespace) -> str:
    store = _store()
    config = _server(args, store)
    settings = load_settings(default_settings_path()).settings
    await sign_in(
        config,
        CredentialStore(lambda: store),
        PrintedBrowser(),
        browser_timeout=args.timeout,
        client_metadata_url=settings.client_metadata_url or None,
    )
    return f"Signed in to {args.name}."


async def _logout(args: argparse.Namespace) -> str:
    store = _store()
    config = _server(args, store)
    assert config.url is not None
    outcome = await sign_out(config.url, config.oauth, CredentialStore(lambda: store))
    return f"{args.name}: {outcome}."


class _NoSecrets:
    def get(self, name: str) -> str | None:
        return None

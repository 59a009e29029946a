"""`mcp-desk install NAME | FILE.mcpb | DOMAIN`: add a server from the MCP Registry, a bundle or a
domain's Server Cards (`install_domain`) to servers.json.

It prints the exact command (or URL) the entry will run, with a warning and, for a local server, the
sandbox it runs in and what that lets it write and reach, and asks before writing anything unless
`--yes`. `--no-sandbox` installs a local server to run without the sandbox, and the consent says so.
Values come from `--set KEY=VALUE` (repeat a key for repeated arguments); secret ones go to the secret
store. Installing a server that is already installed from the same source updates its entry. The
organisation's policy (`core/policy`) is asked first: a server it does not allow, a bundle where bundles
are off, or another registry than the one it pins is refused with its words and nothing is asked or
written. Everything a publisher wrote is printed with its control characters written out
(`core/terminal_text`): it cannot rewrite what the terminal shows. Errors are one line on stderr with
exit code 2; a declined install exits 1; nothing is written unless everything succeeds. A remote's host
is resolved before the consent: a registry or domain on the internet may not point the app at this
computer or the local network.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex
import sys
from pathlib import Path
from typing import Final

from desktop_app.cli.install_domain import CardInstall, check_card, is_domain, plan_from_domain
from desktop_app.cli.search import registry_url
from desktop_app.core.asks.question import Asker, Question, R, ScriptedAsker
from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.discovery.address import DiscoveryError
from desktop_app.core.log_routing import install_logging
from desktop_app.core.network_guard import Resolver, system_resolver
from desktop_app.core.paths import data_dir, default_config_path
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.registry.bundle import Bundle, open_bundle_file
from desktop_app.core.registry.bundle_plan import plan_bundle
from desktop_app.core.registry.choices import choices, download_bundle, pick
from desktop_app.core.registry.client import RegistryClient, RegistryError
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.install import InstallConsent, InstallError, install
from desktop_app.core.registry.manifest import BundleError
from desktop_app.core.registry.plan import (
    InstallPlan,
    check_remote_address,
    entry_name_for,
    plan_package,
    plan_remote,
)
from desktop_app.core.registry.updates import find_installed
from desktop_app.core.secret_store import SecretStore, SecretStoreError, open_secret_store
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.terminal_text import printable

PROG: Final = "mcp-desk install"
EXIT_OK: Final = 0
EXIT_DECLINED: Final = 1
EXIT_ERROR: Final = 2


class UsageError(Exception):
    """Exit 2 with this one-line message."""


class TerminalConsent:
    """Prints the consent and reads y/N from the terminal; end of input declines."""

    async def ask(self, question: Question[R]) -> R:
        assert isinstance(question, InstallConsent)
        sys.stdout.write(describe_consent(question))
        sys.stdout.write("Add it to servers.json? [y/N] ")
        sys.stdout.flush()
        answer = await asyncio.to_thread(sys.stdin.readline)
        agreed = answer.strip().lower() in ("y", "yes")
        return question.yes() if agreed else question.fallback()  # type: ignore[return-value]


class PrintingYes:
    """`--yes`: prints what is installed, then agrees (to the sandbox as the consent shows it)."""

    async def ask(self, question: Question[R]) -> R:
        if isinstance(question, InstallConsent):
            sys.stdout.write(describe_consent(question))
            return question.yes()  # type: ignore[return-value]
        return await ScriptedAsker(lambda _q: True).ask(question)


def describe_consent(consent: InstallConsent) -> str:
    """The consent as terminal text: what, the whole command or URL, environment, headers, warning."""
    update = f" (update from {consent.update_from})" if consent.update_from else ""
    lines = [f"Install '{consent.server}': {consent.source}{update}"]
    if consent.command:
        lines.append(f"Command: {shlex.join(consent.command)}")
    if consent.url:
        lines.append(f"URL: {consent.url}")
    lines += [f"Environment: {name}={value}" for name, value in consent.env]
    lines += [f"Header: {name}: {value}" for name, value in consent.headers]
    if consent.secrets:
        lines.append(consent.secrets_line)
    if (offer := consent.sandbox) is not None:
        lines.append(f"Sandbox: {offer.headline()}")
        if offer.enabled:
            lines += [f"  {line}" for line in offer.rights()]
            if (unavailable := offer.unavailable()) is not None:
                lines.append(f"  {unavailable}; to run it without, install it with --no-sandbox.")
            else:
                lines.append("  To run it without the sandbox, install it with --no-sandbox.")
    lines += [f"Note: {note}" for note in consent.notes]
    lines.append(f"Warning: {consent.warning}")
    return printable("\n".join(lines)) + "\n"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Install a server from the MCP Registry, an .mcpb bundle or a domain's Server Cards.",
    )
    parser.add_argument(
        "target",
        metavar="NAME|FILE.mcpb|DOMAIN",
        help="a registry name (io.github.acme/weather), a file, or a domain or URL (example.com)",
    )
    parser.add_argument("--version", help="the registry version to install (default: the latest)")
    parser.add_argument("--registry", metavar="URL", help="the registry to use (default: the one in Settings)")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a value the server asks for (repeatable)"
    )
    parser.add_argument("--package", metavar="KIND", help="npm, pypi, oci, mcpb or remote (default: the first usable)")
    parser.add_argument("--server", metavar="NAME", help="which of a domain's servers (its card's name)")
    parser.add_argument("--name", help="the entry's name in servers.json (default: from the server's name)")
    parser.add_argument("--config", type=Path, help="servers.json to change (default: the user's)")
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "--no-sandbox",
        dest="sandboxed",
        action="store_false",
        default=None,
        help="run a local server without the sandbox (it gets your permissions: your files, keys and network)",
    )
    return parser


def install_command(argv: list[str], resolve: Resolver = system_resolver) -> int:
    """Exit code; `resolve` answers for the host names a remote's address is checked with."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_ERROR if exc.code not in (0, None) else EXIT_OK
    install_logging(logging.WARNING)  # libraries' warnings on stderr, secrets redacted
    try:
        done = asyncio.run(_install(args, resolve))
    except (UsageError, RegistryError, DiscoveryError, PlanError, BundleError, InstallError, ConfigError) as exc:
        print(printable(f"{PROG}: {exc}"), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; nothing was installed", file=sys.stderr)
        return 130
    if not done:
        print("Nothing was installed.", file=sys.stderr)
        return EXIT_DECLINED
    return EXIT_OK


def parse_settings(pairs: list[str]) -> dict[str, tuple[str, ...]]:
    """`["KEY=a", "KEY=b", "X=1"]` -> `{"KEY": ("a", "b"), "X": ("1",)}`."""
    answers: dict[str, tuple[str, ...]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set needs KEY=VALUE, got {pair!r}")
        answers[key.strip()] = (*answers.get(key.strip(), ()), value)
    return answers


def _secrets(needed: bool) -> SecretStore | None:
    try:
        return open_secret_store(data_dir())
    except SecretStoreError as exc:
        if needed:
            raise UsageError(f"secrets cannot be stored: {exc}") from None
        return None


async def _install(args: argparse.Namespace, resolve: Resolver) -> bool:
    store = ConfigStore(args.config or default_config_path())
    if store.error is not None:
        raise UsageError(f"fix servers.json first: {store.error}")
    answers = parse_settings(args.set)
    policy = policy_in_force()
    from_card: CardInstall | None = None
    if args.target.lower().endswith(".mcpb"):
        if (refusal := policy.feature_refusal("bundles")) is not None:
            raise UsageError(str(refusal))  # not even opened
        bundle = open_bundle_file(Path(args.target))
        plan, previous = _bundle_plan(store, bundle, answers, args.name, origin={"name": bundle.manifest.name})
    elif is_domain(args.target):
        from_card = await plan_from_domain(store, args, answers, lambda: _stored_names(True), resolve)
        plan, previous = from_card.plan, from_card.previous
    else:
        plan, previous = await _registry_plan(store, args, answers, policy, resolve)
    if plan.config.name in store.servers and plan.config.name != plan.replaces:
        raise UsageError(f"a server named '{plan.config.name}' already exists: choose another with --name")
    secrets = _secrets(bool(plan.secrets))
    asker: Asker = PrintingYes() if args.yes else TerminalConsent()

    def save(config: ServerConfig, previous_name: str | None) -> None:
        store.upsert(config, previous_name=previous_name)

    update_from = previous.origin.get("version") if previous is not None else None
    done = await install(
        plan,
        asker=asker,
        save=save,
        secrets=secrets,
        rules=policy,
        update_from=update_from,
        previous=previous,
        sandboxed=args.sandboxed,
    )
    if done:
        print(f"Added '{plan.config.name}' to {store.path}.")
        if from_card is not None:
            sys.stdout.write(await check_card(plan.config, secrets, from_card.card, from_card.remote))
    return done


def _stored_names(needed: bool) -> list[str]:
    store = _secrets(False) if needed else None
    return store.names() if store is not None else []


def _bundle_plan(
    store: ConfigStore, bundle: Bundle, answers: dict[str, tuple[str, ...]], name: str | None, origin: dict[str, str]
) -> tuple[InstallPlan, ServerConfig | None]:
    previous = next(
        (
            c
            for c in store.servers.values()
            if c.origin.get("package") == "mcpb"
            and c.origin.get("name") == origin["name"]
            and c.origin.get("registry") == origin.get("registry")
        ),
        None,
    )
    entry_name = name or (previous.name if previous else entry_name_for(bundle.manifest.name, store.servers))
    plan = plan_bundle(
        bundle,
        answers,
        entry_name=entry_name,
        origin=origin,
        stored=_stored_names(previous is not None),
        replaces=previous.name if previous else None,
    )
    return plan, previous


async def _registry_plan(
    store: ConfigStore,
    args: argparse.Namespace,
    answers: dict[str, tuple[str, ...]],
    policy: PolicyInForce,
    resolve: Resolver,
) -> tuple[InstallPlan, ServerConfig | None]:
    client = RegistryClient(registry_url(args.registry, policy))
    entry = await client.get(args.target, args.version or "latest")
    choice = pick(choices(entry), args.package)
    if choice.kind == "mcpb":
        if (refusal := policy.feature_refusal("bundles")) is not None:
            raise UsageError(str(refusal))  # not even downloaded
        assert choice.package is not None
        bundle = await download_bundle(client, choice.package)
        origin = {"registry": client.base_url, "name": entry.server.name, "version": entry.server.version}
        return _bundle_plan(store, bundle, answers, args.name, origin)
    previous = find_installed(store.servers.values(), client.base_url, entry.server.name)
    entry_name = args.name or (previous.name if previous else entry_name_for(entry.server.name, store.servers))
    stored = _stored_names(previous is not None)
    replaces = previous.name if previous else None
    if choice.package is not None:
        plan = plan_package(
            entry,
            choice.package,
            answers,
            entry_name=entry_name,
            registry_url=client.base_url,
            stored=stored,
            replaces=replaces,
        )
    else:
        assert choice.remote is not None
        plan = plan_remote(
            entry,
            choice.remote,
            answers,
            entry_name=entry_name,
            registry_url=client.base_url,
            stored=stored,
            replaces=replaces,
        )
        await check_remote_address(plan.config.url or "", client.base_url, resolve)
    return plan, previous


if __name__ == "__main__":
    sys.exit(install_command(sys.argv[1:]))

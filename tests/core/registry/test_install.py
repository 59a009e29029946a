"""Installs end to end: consent, secrets, files and the entry, or nothing; then the server really runs."""

from __future__ import annotations

import json
import os
import shutil
import sys
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.asks.question import ScriptedAsker
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.host import ServerHost
from desktop_app.core.paths import data_dir
from desktop_app.core.policy.in_force import NO_POLICY
from desktop_app.core.registry.bundle import bundles_dir, read_bundle, remove_bundle_files
from desktop_app.core.registry.bundle_plan import plan_bundle
from desktop_app.core.registry.choices import choices, download_bundle, pick
from desktop_app.core.registry.client import RegistryClient
from desktop_app.core.registry.install import InstallConsent, InstallError, InstallReply, install
from desktop_app.core.registry.manifest import BundleError
from desktop_app.core.registry.plan import InstallPlan, plan_package
from desktop_app.core.sandbox.probe import BUBBLEWRAP, INSTALL_HINT, SandboxSupport
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.secret_store import SecretStore, open_secret_store
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from tests.hosting import serving_configs
from tests.servers.fixture_server import LONG_END_MARKER
from tests.servers.registry_documents import bundle_entry, fixture_binary_bundle, fixture_python_bundle
from tests.servers.registry_fixture import RegistryFixture, response

pytestmark = pytest.mark.anyio
HELLO = "io.github.mcp-desk-tests/hello"
BWRAP = SandboxSupport(BUBBLEWRAP, "/usr/bin/bwrap")
NO_TIER = SandboxSupport(None, problem=f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}; and Landlock is off")


@pytest.fixture
def secrets(tmp_path: Path) -> SecretStore:
    return open_secret_store(tmp_path / "data", prefer="plaintext-file")


@pytest.fixture
def store(tmp_path: Path) -> ConfigStore:
    return ConfigStore(tmp_path / "servers.json")


@pytest.fixture
def venv_python_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bundles run `python`: let it be this interpreter, which has the fixture server's packages."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def agree(question: InstallConsent) -> InstallReply:
    return question.yes()


def decline(question: InstallConsent) -> InstallReply:
    return question.fallback()


def gone(path: str | Path) -> bool:
    return not Path(path).exists()


async def hello_plan(registry: RegistryFixture, **answers: str) -> InstallPlan:
    client = RegistryClient(registry.url)
    entry = await client.get(HELLO)
    choice = pick(choices(entry), "npm")
    assert choice.package is not None
    given = {k: (v,) for k, v in answers.items()}
    return plan_package(entry, choice.package, given, entry_name="hello", registry_url=client.base_url)


def saver(store: ConfigStore):  # type: ignore[no-untyped-def]
    return lambda config, previous: store.upsert(config, previous_name=previous)


def run_host(config: ServerConfig, secrets: SecretStore) -> AbstractAsyncContextManager[ServerHost]:
    return serving_configs(config, settle=90, secrets=secrets)


async def test_declined_installs_nothing(registry: RegistryFixture, store: ConfigStore, secrets: SecretStore) -> None:
    plan = await hello_plan(registry, HELLO_TOKEN="tok")
    asker = ScriptedAsker(decline)
    assert not await install(plan, asker=asker, save=saver(store), secrets=secrets, rules=NO_POLICY)
    [consent] = asker.asked
    assert isinstance(consent, InstallConsent)
    assert consent.command[:4] == (shutil.which("npx"), "-y", "--registry", registry.npm_url)
    assert consent.secrets == ("HELLO_TOKEN",) and "run on your computer" in consent.warning
    # The store is a plaintext file: the consent says so, and which file, rather than "the secret store".
    assert not consent.stored_encrypted and secrets.backend.path is not None
    assert consent.secrets_line == f"Stored in a plaintext file, not encrypted ({secrets.backend.path}): HELLO_TOKEN"
    assert not store.path.exists() and secrets.names() == []


async def test_no_answer_is_no(registry: RegistryFixture, store: ConfigStore, secrets: SecretStore) -> None:
    plan = await hello_plan(registry, HELLO_TOKEN="tok")
    # Nobody answers: the consent's fallback is no.
    assert not await install(plan, asker=ScriptedAsker(), save=saver(store), secrets=secrets, rules=NO_POLICY)
    assert not store.path.exists()


async def test_npm_install_starts_and_serves_its_resource(
    registry: RegistryFixture, store: ConfigStore, secrets: SecretStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # npx's cache, away from the real one
    plan = await hello_plan(registry, audience="Ada", HELLO_GREETING="Bonjour", HELLO_TOKEN="tok")
    assert await install(plan, asker=ScriptedAsker(agree), save=saver(store), secrets=secrets, rules=NO_POLICY)
    written = json.loads(store.path.read_text())["mcpServers"]["hello"]
    assert written["command"] == shutil.which("npx")
    assert written["args"][-3:] == ["--", "@mcp-desk-tests/hello@1.0.0", "Ada"]
    assert written["env"]["HELLO_TOKEN"] == "${secret:HELLO_TOKEN}" and "tok" not in store.path.read_text()
    assert written["origin"] == {"registry": registry.url, "name": HELLO, "version": "1.0.0", "package": "npm"}
    assert secrets.get("HELLO_TOKEN") == "tok"
    # Sandboxed by default, reaching only the npm registry npx downloads the package from (here on 127.0.0.1).
    assert written["sandboxEnabled"] is True and written["sandbox"] == {"network": {"allowedDomains": ["127.0.0.1"]}}
    async with run_host(ConfigStore(store.path).servers["hello"], secrets) as host:
        assert host.connection("hello").status.state is ServerState.READY, host.connection("hello").status.reason
        notes = [entry.text for entry in host.connection("hello").log if entry.source == "host"]
        assert any("network only to 127.0.0.1 through the sandbox's proxy" in note for note in notes), notes
        [content] = await host.read_resource("hello://greeting")
        assert content.text == "Bonjour, Ada"
    assert any(r.startswith("/npm/-/hello-1.0.0.tgz") for r in registry.requests)


async def test_failed_save_undoes_secrets_and_files(
    registry: RegistryFixture, tmp_path: Path, secrets: SecretStore, venv_python_on_path: None
) -> None:
    broken = tmp_path / "servers.json"
    broken.write_text('{"mcpServers": {"x": ')  # a hand edit in progress
    store = ConfigStore(broken)
    secrets.set("FIXTURE_TOKEN", "old value")
    plan = plan_bundle(
        read_bundle(fixture_python_bundle()), {"token": ("new",)}, entry_name="fixture", root=tmp_path / "b"
    )
    with pytest.raises(InstallError, match=r"not saving: the file has an error to fix first.*nothing was installed"):
        await install(plan, asker=ScriptedAsker(agree), save=saver(store), secrets=secrets, rules=NO_POLICY)
    assert broken.read_text() == '{"mcpServers": {"x": '
    assert secrets.get("FIXTURE_TOKEN") == "old value"
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())


async def test_missing_secret_store_refuses_before_writing(registry: RegistryFixture, store: ConfigStore) -> None:
    plan = await hello_plan(registry, HELLO_TOKEN="tok")
    with pytest.raises(InstallError, match=r"no secret store is available"):
        await install(plan, asker=ScriptedAsker(agree), save=saver(store), secrets=None, rules=NO_POLICY)
    assert not store.path.exists()


@pytest.mark.parametrize("make", [fixture_python_bundle, fixture_binary_bundle])
async def test_bundle_installs_runs_sandboxed_and_uninstalls(
    make: object, store: ConfigStore, secrets: SecretStore, outside_tmp: Path, venv_python_on_path: None
) -> None:
    assert callable(make)
    bundle = read_bundle(make())
    answers = {"token": ("t0k3n-value",)} if bundle.manifest.user_config else {}
    plan = plan_bundle(bundle, answers, entry_name="fixture", root=outside_tmp / "bundles")
    assert await install(plan, asker=ScriptedAsker(agree), save=saver(store), secrets=secrets, rules=NO_POLICY)
    config = ConfigStore(store.path).servers["fixture"]
    folder = Path(config.origin["bundle"])
    assert (folder / "manifest.json").is_file() and config.sandbox_enabled
    async with run_host(config, secrets) as host:
        connection = host.connection("fixture")
        assert connection.status.state is ServerState.READY, connection.status.reason
        assert any(entry.text.startswith("sandboxed: ") for entry in connection.log if entry.source == "host")
        [long] = await host.read_resource("fixture://long")
        assert long.text is not None and long.text.endswith(LONG_END_MARKER)
        if answers:  # the secret reached the server (and was redacted from its log)
            assert any("FIXTURE_TOKEN=***" in entry.text for entry in connection.log)
    assert remove_bundle_files(config, outside_tmp / "bundles") and gone(folder)


async def test_registry_bundle_is_verified_before_use(registry: RegistryFixture) -> None:
    data = fixture_python_bundle()
    registry.add(response(bundle_entry(registry, data)))
    client = RegistryClient(registry.url)
    entry = await client.get("io.github.mcp-desk-tests/fixture-bundle")
    choice = pick(choices(entry))
    assert choice.kind == "mcpb" and choice.package is not None
    bundle = await download_bundle(client, choice.package)
    assert bundle.manifest.name == "fixture-bundle"
    registry.files["fixture.mcpb"] = data + b"tampered"
    with pytest.raises(BundleError, match=r"does not match the registry's checksum"):
        await download_bundle(client, choice.package)


async def test_update_replaces_the_entry_and_old_files(
    store: ConfigStore, secrets: SecretStore, tmp_path: Path, venv_python_on_path: None
) -> None:
    root = tmp_path / "bundles"
    bundle = read_bundle(fixture_python_bundle())
    first = plan_bundle(bundle, {"token": ("one",)}, entry_name="fixture", root=root)
    await install(first, asker=ScriptedAsker(agree), save=saver(store), secrets=secrets, rules=NO_POLICY)
    old = ConfigStore(store.path).servers["fixture"]
    second = plan_bundle(bundle, {}, entry_name="fixture", root=root, stored=secrets.names(), replaces="fixture")
    asker = ScriptedAsker(agree)
    await install(
        second, asker=asker, save=saver(store), secrets=secrets, rules=NO_POLICY, update_from="1.0.0", previous=old
    )
    [consent] = asker.asked
    assert isinstance(consent, InstallConsent) and consent.update_from == "1.0.0"
    new = ConfigStore(store.path).servers["fixture"]
    assert list(ConfigStore(store.path).servers) == ["fixture"]
    assert new.origin["bundle"] != old.origin["bundle"] and gone(old.origin["bundle"])
    assert secrets.get("FIXTURE_TOKEN") == "one"  # kept: the update left it empty


async def test_an_update_keeps_the_sandbox_the_user_gave_the_entry(
    store: ConfigStore, secrets: SecretStore, tmp_path: Path, venv_python_on_path: None
) -> None:
    root = tmp_path / "bundles"
    bundle = read_bundle(fixture_python_bundle())
    first = plan_bundle(bundle, {"token": ("one",)}, entry_name="fixture", root=root)
    await install(first, asker=ScriptedAsker(agree), save=saver(store), secrets=secrets, rules=NO_POLICY)
    confined = SandboxSettings(deny_read=("~/private",))
    store.upsert(replace(store.servers["fixture"], sandbox_enabled=True, sandbox=confined), previous_name="fixture")
    old = ConfigStore(store.path).servers["fixture"]
    second = plan_bundle(bundle, {}, entry_name="fixture", root=root, stored=secrets.names(), replaces="fixture")
    await install(second, asker=ScriptedAsker(agree), save=saver(store), secrets=secrets, rules=NO_POLICY, previous=old)
    new = ConfigStore(store.path).servers["fixture"]
    assert (new.sandbox_enabled, new.sandbox) == (True, confined)
    assert new.origin["bundle"] != old.origin["bundle"]  # it is the update, confined as before


def hello_entry(store: ConfigStore) -> dict[str, object]:
    return json.loads(store.path.read_text())["mcpServers"]["hello"]  # type: ignore[no-any-return]


async def test_the_consent_shows_the_sandbox_and_going_without_saves_it_off(
    registry: RegistryFixture, store: ConfigStore, secrets: SecretStore
) -> None:
    plan = await hello_plan(registry, HELLO_TOKEN="tok")
    asker = ScriptedAsker(lambda q: q.yes(sandboxed=False))  # the user unticks "Run it in the sandbox"
    done = await install(
        plan, asker=asker, save=saver(store), secrets=secrets, rules=NO_POLICY, sandbox_support=lambda: BWRAP
    )
    assert done
    [consent] = asker.asked
    offer = consent.sandbox
    assert offer is not None and offer.enabled and offer.tier == BUBBLEWRAP and offer.problem is None
    assert offer.rights() == [
        "May write to: only its own temporary folders",
        "May connect to: 127.0.0.1 (npx downloads the package from it when the server first starts)",
    ]
    written = hello_entry(store)
    # Off, its offered sandbox kept: that is how an update knows the user chose to run it without.
    assert "sandboxEnabled" not in written and written["sandbox"] == {"network": {"allowedDomains": ["127.0.0.1"]}}


async def test_where_this_computer_cannot_sandbox_the_consent_says_it_will_not_start(
    registry: RegistryFixture, store: ConfigStore, secrets: SecretStore
) -> None:
    plan = await hello_plan(registry, HELLO_TOKEN="tok")
    asker = ScriptedAsker(agree)
    await install(
        plan, asker=asker, save=saver(store), secrets=secrets, rules=NO_POLICY, sandbox_support=lambda: NO_TIER
    )
    [consent] = asker.asked
    assert consent.sandbox is not None and consent.sandbox.tier is None
    assert consent.sandbox.unavailable() == (
        f"This computer cannot sandbox it now: {NO_TIER.problem}. Sandboxed, it will not start until that is fixed"
    )
    assert hello_entry(store)["sandboxEnabled"] is True  # never quietly installed to run unconfined


async def test_no_sandbox_chosen_before_asking_is_what_the_consent_shows(
    registry: RegistryFixture, store: ConfigStore, secrets: SecretStore
) -> None:
    plan = await hello_plan(registry, HELLO_TOKEN="tok")
    asker = ScriptedAsker(agree)
    await install(plan, asker=asker, save=saver(store), secrets=secrets, rules=NO_POLICY, sandboxed=False)
    [consent] = asker.asked
    assert consent.sandbox is not None and not consent.sandbox.enabled
    assert consent.sandbox.headline().startswith("off. Without the sandbox it runs with your permissions")
    assert "sandboxEnabled" not in hello_entry(store)


async def test_an_update_keeps_the_users_choice_to_run_without_the_sandbox(
    store: ConfigStore, secrets: SecretStore, tmp_path: Path
) -> None:
    root = tmp_path / "bundles"
    bundle = read_bundle(fixture_python_bundle())
    first = plan_bundle(bundle, {"token": ("one",)}, entry_name="fixture", root=root)
    without = ScriptedAsker(lambda q: q.yes(sandboxed=False))
    await install(first, asker=without, save=saver(store), secrets=secrets, rules=NO_POLICY)
    old = ConfigStore(store.path).servers["fixture"]
    assert (old.sandbox_enabled, old.sandbox) == (False, SandboxSettings())
    second = plan_bundle(bundle, {}, entry_name="fixture", root=root, stored=secrets.names(), replaces="fixture")
    assert second.config.sandbox_enabled  # what a new install would get
    asker = ScriptedAsker(agree)
    await install(second, asker=asker, save=saver(store), secrets=secrets, rules=NO_POLICY, previous=old)
    [consent] = asker.asked
    assert consent.sandbox is not None and not consent.sandbox.enabled  # the consent shows it as it will be
    new = ConfigStore(store.path).servers["fixture"]
    assert not new.sandbox_enabled and new.origin["bundle"] != old.origin["bundle"]


async def test_an_entry_installed_before_installs_were_sandboxed_is_offered_the_sandbox_on_update(
    store: ConfigStore, secrets: SecretStore, tmp_path: Path
) -> None:
    root = tmp_path / "bundles"
    bundle = read_bundle(fixture_python_bundle())
    first = plan_bundle(bundle, {"token": ("one",)}, entry_name="fixture", root=root)
    await install(first, asker=ScriptedAsker(agree), save=saver(store), secrets=secrets, rules=NO_POLICY)
    store.upsert(replace(store.servers["fixture"], sandbox_enabled=False, sandbox=None), previous_name="fixture")
    old = ConfigStore(store.path).servers["fixture"]
    second = plan_bundle(bundle, {}, entry_name="fixture", root=root, stored=secrets.names(), replaces="fixture")
    asker = ScriptedAsker(agree)
    await install(second, asker=asker, save=saver(store), secrets=secrets, rules=NO_POLICY, previous=old)
    [consent] = asker.asked
    assert consent.sandbox is not None and consent.sandbox.enabled
    assert ConfigStore(store.path).servers["fixture"].sandbox_enabled


async def test_an_installed_python_bundle_runs_sandboxed_from_its_own_folder(
    store: ConfigStore, secrets: SecretStore, outside_tmp: Path, venv_python_on_path: None
) -> None:
    plan = plan_bundle(read_bundle(fixture_python_bundle()), {"token": ("t0k3n",)}, entry_name="fixture")
    assert await install(plan, asker=ScriptedAsker(agree), save=saver(store), secrets=secrets, rules=NO_POLICY)
    config = ConfigStore(store.path).servers["fixture"]
    folder = Path(config.origin["bundle"])
    # Unpacked beside the app's data folder, which the sandbox hides from every server, not inside it.
    assert folder.parent == bundles_dir() and data_dir() not in folder.parents
    assert config.sandbox_enabled
    async with run_host(config, secrets) as host:
        connection = host.connection("fixture")
        assert connection.status.state is ServerState.READY, connection.status.explained()
        notes = [entry.text for entry in connection.log if entry.source == "host"]
        assert any(note.startswith(f"sandboxed: {BUBBLEWRAP} (") for note in notes), notes
        assert connection.catalog is not None and "echo" in [tool.name for tool in connection.catalog.tools]
        result = await connection.call_tool("echo", {"text": "from inside"})
        assert "from inside" in str(result.content[0])


async def test_command_gone_after_install_is_reported(secrets: SecretStore) -> None:
    config = ServerConfig(
        name="gone",
        transport=__import__("desktop_app.core.server_config").core.server_config.TransportKind.STDIO,
        command="mcp-desk-no-such-command",
    )
    async with run_host(config, secrets) as host:
        status = host.connection("gone").status
        assert status.state is ServerState.FAILED and "command not found: mcp-desk-no-such-command" in (
            status.reason or ""
        )

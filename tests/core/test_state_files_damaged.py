"""Every file the app reads at start, damaged: garbage bytes, the wrong JSON types, a folder in its place.

Each is opened by the real component, which must come up (defaults, an empty list) and delete nothing:
the damaged bytes stay at the path or beside it as `<name>.corrupt-<date>`. Tests run as root, so an
unreadable file is played by a folder in its place.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.app_settings import load_settings
from desktop_app.core.asks.service import SamplingGrants
from desktop_app.core.chat.approval_rules import AlwaysAllowRules
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.discovery.cache import DocumentCache
from desktop_app.core.install_records import InstallRecords
from desktop_app.core.policy.in_force import load_policy
from desktop_app.core.policy.location import Location
from desktop_app.core.registry.cache import RegistryCache
from desktop_app.core.secret_store import ENCRYPTED_FILENAME, PLAINTEXT_FILENAME, SecretStoreError, open_secret_store
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.skills.consent import SkillRules
from desktop_app.core.tasks.store import TaskStore

URL = "https://example.test/.well-known/mcp.json"
GARBAGE = b"\xff\xfe\x00 garbage from a crash \x80\x81" * 40


@dataclass(frozen=True)
class StateFile:
    name: str
    where: Callable[[Path], Path]
    """The file, given a fresh folder."""
    start: Callable[[Path], Any]
    """Open the real component over the folder (a state file it reads at start); must not raise."""
    wrong_types: tuple[Any, ...]
    """JSON documents of the wrong shape for this file."""


def _secrets(folder: Path) -> Any:
    try:
        store = open_secret_store(folder, prefer="plaintext-file")
    except SecretStoreError as exc:  # the window shows this one as a notice
        return exc
    return store.names(), store.get("ANY")


def _encrypted_secrets(folder: Path) -> Any:
    try:
        store = open_secret_store(folder, prefer="encrypted-file", password="a password")
    except SecretStoreError as exc:
        return exc
    return store.names(), store.get("ANY")


def _registry_file(folder: Path) -> Path:
    cache = RegistryCache(folder)
    return cache._file("https://registry.test")


FILES = [
    StateFile(
        "settings",
        lambda f: f / "settings.json",
        lambda f: load_settings(f / "settings.json"),
        ([1, 2], "text", {"model": 5}, {"chat": [1]}, {"identity_provider": 5}, {"roots": "/"}, {"theme": [1]}),
    ),
    StateFile(
        "servers",
        lambda f: f / "servers.json",
        lambda f: ConfigStore(f / "servers.json"),
        ([1], None, {"mcpServers": 5}, {"mcpServers": {"x": 5}}, {"mcpServers": {"x": {"command": 5}}}),
    ),
    StateFile(
        "policy",
        lambda f: f / "policy.json",
        lambda f: load_policy(Location(f / "policy.json", overridden=True)),
        ([1], None, {"servers": 5}, {"servers": {"allow": "x"}}),
    ),
    StateFile("secrets", lambda f: f / PLAINTEXT_FILENAME, _secrets, ()),
    StateFile("encrypted secrets", lambda f: f / ENCRYPTED_FILENAME, _encrypted_secrets, ()),
    StateFile(
        "tasks",
        lambda f: f / "tasks.json",
        lambda f: TaskStore(f / "tasks.json").running(),
        ([1], None, {"running": 5}, {"results": 5}, {"running": [5], "results": [{"task": 5}]}),
    ),
    StateFile(
        "approvals",
        lambda f: f / "approvals.json",
        lambda f: AlwaysAllowRules(f / "approvals.json").rules(),
        ([1], None, {"always_allow": 5}, {"always_allow": [{"server": "s", "tool": "t", "digest": 5}]}),
    ),
    StateFile(
        "sampling grants",
        lambda f: f / "sampling.json",
        lambda f: SamplingGrants(f / "sampling.json"),
        ([1], None, {"always_allow": [5, None]}, {"always_allow": 5}),
    ),
    StateFile(
        "skill consents",
        lambda f: f / "skills.json",
        lambda f: SkillRules(f / "skills.json"),
        ([1], None, {"always_allow": [5]}, {"always_allow": 5}),
    ),
    StateFile(
        "install records",
        lambda f: f / "installs.json",
        lambda f: InstallRecords(f / "installs.json").backs(ServerConfig("x", TransportKind.STDIO, command="x")),
        ([1], None, {"servers": 5}, {"servers": {"x": 5}}, {"servers": {"x": {"origin": 5}}}),
    ),
    StateFile(
        "discovery cache",
        lambda f: DocumentCache(f)._file(URL),
        lambda f: DocumentCache(f).load(URL),
        ([1], None, {"url": URL, "body": 5, "fetchedAt": 5, "maxAge": "x"}),
    ),
    StateFile(
        "registry cache",
        _registry_file,
        lambda f: RegistryCache(f).load("https://registry.test", ""),
        (
            [1],
            None,
            {"registry": "https://registry.test", "pages": 5},
            {"registry": "https://registry.test", "pages": {"": 5}},
        ),
    ),
]


def damages(state: StateFile) -> list[tuple[str, Callable[[Path], None]]]:
    def garbage(path: Path) -> None:
        path.write_bytes(GARBAGE)

    def folder(path: Path) -> None:
        path.mkdir()
        (path / "keep.txt").write_text("someone's file")

    def wrong(document: Any) -> Callable[[Path], None]:
        return lambda path: path.write_text(json.dumps(document))

    return [("garbage", garbage), ("a folder", folder)] + [
        (f"JSON {json.dumps(doc)}", wrong(doc)) for doc in state.wrong_types
    ]


def case(state: StateFile, how: str, damage: Callable[[Path], None]) -> Any:
    return pytest.param(state, damage, id=f"{state.name}: {how}")


CASES = [case(state, how, damage) for state in FILES for how, damage in damages(state)]


def everything_under(folder: Path) -> list[bytes]:
    return sorted(p.read_bytes() for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize(("state", "damage"), CASES)
def test_a_damaged_state_file_never_stops_its_component_and_nothing_is_deleted(
    tmp_path: Path, state: StateFile, damage: Callable[[Path], None]
) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    path = state.where(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    damage(path)
    before = everything_under(folder)

    state.start(folder)  # comes up: no exception

    after = everything_under(folder)
    assert all(content in after for content in before), "the damaged file is kept (at its path or set aside)"

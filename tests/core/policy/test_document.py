"""Reading the policy file strictly: the asked-for shape works key for key, and every mistake names its
file, line and field, and blocks nothing."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from desktop_app.core.policy.document import PolicyError, ServerRule, parse_policy, read_policy
from desktop_app.core.policy.in_force import load_policy, policy_in_force
from desktop_app.core.policy.location import ENV_VAR, Location, policy_location, system_policy_path
from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.policy_files import ISSUE_SHAPE, put_policy

HERE = Path("/etc/mcp-desk/policy.json")


def test_the_issue_shape_reads_key_for_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    document = {**ISSUE_SHAPE, "identityProvider": {"issuer": "https://login.acme.example", "clientId": "desk"}}
    policy = put_policy(tmp_path, monkeypatch, document)
    rules = policy.rules
    assert policy.problem is None and policy.source == tmp_path / "policy.json"
    assert rules.allow == (
        ServerRule("registry", "io.github.acme/*", None, "servers.allow[0]", 4),
        ServerRule("url", "https://mcp.acme.example", None, "servers.allow[1]", 7),
        ServerRule("command", "npx", ("-y", "@acme/*"), "servers.allow[2]", 10),
    )
    assert rules.registry == "https://registry.acme.example"
    assert not any(vars(rules.features).values())
    assert rules.every_call
    assert policy.identity_provider == {"issuer": "https://login.acme.example", "clientId": "desk"}
    assert str(policy.feature_refusal("bundles")) == (
        "blocked by your organisation's policy: bundles (.mcpb files) cannot be installed (features.bundles)"
    )
    assert policy.feature_refusal("apps") is not None and policy.feature_refusal("sampling") is not None
    every_call = policy.every_call()
    assert every_call is not None and every_call.where == "approvals.everyCall, line 27"
    assert policy.fixed("registry") == "set by your organisation's policy: https://registry.acme.example (registry)"


def test_an_empty_policy_allows_everything_and_fixes_nothing() -> None:
    rules = parse_policy("{}", HERE)
    assert rules.allow is None and rules.registry is None and rules.features.apps and not rules.every_call
    anything = ServerConfig("x", TransportKind.STDIO, command="/bin/anything")
    policy = load_policy(Location(HERE.with_name("missing.json")))
    assert policy.problem is None and policy.source is None
    assert policy.server_refusal(anything) is None and policy.install_refusal(anything, bundle=True) is None
    assert policy.registry_url("https://mine.example") == "https://mine.example"
    # An empty list is a list: nothing may run.
    assert parse_policy('{"servers": {"allow": []}}', HERE).allow == ()


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ('{\n  "servers": {\n    "aloow": []\n  }\n}', 3, "servers.aloow", "is not a policy setting"),
        ('{\n "features": {\n  "apps": "no"\n }\n}', 3, "features.apps", "must be true or false"),
        ('{"approvals": {"everyCall": true},\n "approvals": {}}', 2, "approvals", "is given twice"),
        ('{"servers": {"allow": [\n {"url": "https://mcp.acme.example/mcp"}]}}', 2, "servers.allow[0].url", "path"),
        ('{"servers": {"allow": [{"command": "npx",\n "url": "https://a.example"}]}}', 1, "servers.allow[0]", "one of"),
        ('{"servers": {"allow": [{"url": "https://a.example",\n "args": []}]}}', 2, "servers.allow[0].args", "only"),
        ('{"servers": {"allow": [{"command": "node", "args": ["**", "x"]}]}}', 1, "servers.allow[0].args", "last"),
        ('{"servers": {"allow": [{"command": "node", "args": "x.js"}]}}', 1, "servers.allow[0].args", "a list"),
        ('{"servers": {"allow": [{"command": ""}]}}', 1, "servers.allow[0].command", "not empty"),
        ('{"registry": "ftp://registry.acme.example"}', 1, "registry", "https://"),
        ('{"identityProvider": {"issuer": "http://i.example", "clientId": "d"}}', 1, "identityProvider.issuer", "http"),
        ('{"identityProvider": {"issuer": "https://login.acme.example"}}', 1, "identityProvider", "clientId"),
        ('{\n"servers": {"allow": [\n  {"url": "https://*x.acme.example"}\n]}}', 3, "servers.allow[0].url", "*"),
        ('{\n  "features": {"bundles": false,}\n}', 2, "", "not valid JSON"),
        ("[1, 2]", 1, "the document", "must be an object"),
    ],
)
def test_each_mistake_names_file_line_and_field(text: str, line: int, field: str, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, HERE)
    error = caught.value
    assert (error.source, error.line, error.field) == (HERE, line, field)
    assert message in error.message
    assert str(error).startswith(f"{HERE}, line {line}: ")


def test_a_file_that_cannot_be_followed_blocks_nothing_and_is_reported_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    policy = put_policy(tmp_path, monkeypatch, '{\n  "servers": {"allow": [{"command": "npx", "arg": []}]}\n}')
    assert policy.problem == (
        f"{tmp_path / 'policy.json'}, line 2: servers.allow[0].arg: is not a policy setting"
        " (known here: registry, url, command, args)"
    )
    assert policy.rules.allow is None  # nothing is blocked
    assert policy.server_refusal(ServerConfig("x", TransportKind.STDIO, command="/bin/evil")) is None
    for _ in range(3):
        assert policy_in_force() is policy  # read once, not on every question
    assert [r.getMessage() for r in caplog.records].count(f"organisation's policy: {policy.problem}") == 1

    (tmp_path / "not-utf8.json").write_bytes(b'{"registry":\n "\xff"}')
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "not-utf8.json"))
    assert policy_in_force().problem == f"{tmp_path / 'not-utf8.json'}, line 2: the file is not UTF-8 text"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "absent.json"))
    assert policy_in_force().problem == f"{tmp_path / 'absent.json'}: there is no such file"
    (tmp_path / "folder.json").mkdir()
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "folder.json"))
    problem = policy_in_force().problem
    assert problem is not None and problem.startswith(f"{tmp_path / 'folder.json'}: cannot be read")


def test_a_huge_or_deep_file_is_refused_not_read_whole(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    huge.write_text('{"$schema": "' + "x" * (1024 * 1024) + '"}')
    with pytest.raises(PolicyError, match="larger than 1024 KiB"):
        read_policy(huge)
    with pytest.raises(PolicyError, match="nested too deeply"):
        parse_policy('{"$schema": ' + "[" * 100_000 + "]" * 100_000 + "}", HERE)


def test_where_the_file_is_and_who_may_move_it(tmp_path: Path) -> None:
    assert system_policy_path("linux") == Path("/etc/mcp-desk/policy.json")
    assert system_policy_path("darwin") == Path("/Library/Application Support/mcp-desk/policy.json")
    windows = system_policy_path("win32", {"ProgramData": r"D:\Data"})
    assert windows == Path(r"D:\Data") / "mcp-desk" / "policy.json"
    system = tmp_path / "system" / "policy.json"
    mine = tmp_path / "mine.json"
    assert policy_location({}, system) == Location(system)
    assert policy_location({ENV_VAR: str(mine)}, system) == Location(mine, overridden=True)
    # Once an administrator placed a policy, the user's environment cannot point elsewhere.
    system.parent.mkdir()
    system.write_text(json.dumps({"features": {"apps": False}}))
    location = policy_location({ENV_VAR: str(mine)}, system)
    assert location.path == system and not location.overridden
    assert location.ignored == f"{ENV_VAR} is ignored: a policy is in place at {system}"

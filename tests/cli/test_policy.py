"""The organisation's policy on the command line: `mcp-desk policy` says what is in force, `mcp-desk run`
never starts a blocked server and asks every call, `mcp-desk install` refuses what the policy does not allow."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.__main__ import main
from desktop_app.cli.install import install_command
from desktop_app.cli.run import run_command
from desktop_app.cli.search import search_command
from desktop_app.core.config_file import load_config
from tests.hosting import FIXTURE_SCRIPT
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.policy_files import ISSUE_SHAPE, put_managed_mcp, put_policy
from tests.servers.card_domain import running_domain
from tests.servers.registry_documents import bundle_entry, fixture_python_bundle, populate
from tests.servers.registry_fixture import RegistryFixture, response, running_registry

pytestmark = LITELLM_WARNINGS
HELLO = "io.github.mcp-desk-tests/hello"
BLOCKED = "blocked by your organisation's policy"


@pytest.fixture
def registry() -> Iterator[RegistryFixture]:
    with running_registry() as fixture:
        populate(fixture)
        fixture.add(response(bundle_entry(fixture, fixture_python_bundle())))
        yield fixture


def test_policy_prints_the_rules_in_force_and_their_file(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    put_policy(home, monkeypatch, ISSUE_SHAPE)
    assert main(["policy"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == [
        f"Policy in force: {home / 'policy.json'}",
        "Servers: only those on the list (3 entries); others are blocked.",
        "  servers.allow[0] (line 4): registry name io.github.acme/*",
        "  servers.allow[1] (line 7): remote server at https://mcp.acme.example",
        "  servers.allow[2] (line 10): command npx with arguments -y @acme/*",
    ]
    assert "Registry: only https://registry.acme.example (registry, line 19)." in out
    assert "Bundles (.mcpb): off (features.bundles, line 21)" in out
    assert "Every tool call asked: yes, no rule or allowance answers for the user (approvals.everyCall, line 27)" in out
    assert "Local servers sandboxed: as their entries say" in out

    required = home / "required.json"
    required.write_text('{\n  "sandbox": {"required": true}\n}')
    assert main(["policy", "--file", str(required)]) == 0
    assert "Local servers sandboxed: required, whatever their entries say (sandbox.required, line 2)" in (
        capsys.readouterr().out.splitlines()
    )

    broken = home / "broken.json"
    broken.write_text('{\n  "features": {"apps": "off"}\n}')
    assert main(["policy", "--file", str(broken)]) == 2
    assert capsys.readouterr().out == (
        f"The policy file cannot be followed, so it blocks nothing: {broken}, line 2: features.apps: must be true"
        " or false\n"
    )
    monkeypatch.setenv("MCP_DESK_POLICY_FILE", str(home / "none.json"))
    assert main(["policy"]) == 2  # named but missing: said, not silently nothing
    assert capsys.readouterr().out.endswith(
        "none.json: there is no such file\nNo server lists are in force (no file at /etc/mcp-desk/managed-mcp.json).\n"
    )
    monkeypatch.delenv("MCP_DESK_POLICY_FILE")
    assert main(["policy"]) == 0
    assert capsys.readouterr().out.startswith("No policy is in force (no file at ")


@pytest.mark.stdio
def test_run_never_starts_a_blocked_server_and_asks_every_call(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    marker = home / "ran"
    config = home / "servers.json"
    servers = {
        "fx": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]},
        "marker": {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w').write('ran')"]},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    allowed = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}
    put_policy(home, monkeypatch, {"servers": {"allow": [allowed]}, "approvals": {"everyCall": True}})
    with ScriptedLLM() as llm:
        llm.queue(calls(ToolCall("fx__echo", {"text": "hi"})), text("Not allowed."))
        args = ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url, "--approve", "allow"]
        assert run_command([*args, "echo hi"]) == 0
        [result] = tool_messages(llm.bodies()[1])
    assert not marker.exists()
    err = capsys.readouterr().err
    assert (
        f"mcp-desk run: warning: server marker is unavailable: {BLOCKED}: 'marker' is not on the list of servers"
        f" allowed to run: it allows {sys.executable} only with the arguments {FIXTURE_SCRIPT} (servers.allow[0])"
    ) in err
    # --approve allow answers before anything is shown: under approvals.everyCall that is no approval.
    assert result["content"].startswith(f"The user declined: {BLOCKED}: every tool call needs your approval")


def test_policy_prints_the_converged_file_beside_policy_json(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    put_policy(home, monkeypatch, {"approvals": {"everyCall": True}})
    lists = {
        "allowedMcpServers": [{"serverUrl": "https://*.acme.example/*"}, {"serverCommand": ["npx", "-y", "@acme/x"]}],
        "deniedMcpServers": [{"serverName": "filesystem"}],
        "allowManagedMcpServersOnly": True,
    }
    put_managed_mcp(home, monkeypatch, lists)
    assert main(["policy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Policy in force: {home / 'policy.json'}\n")
    assert out.endswith(
        f"Server lists in force: {home / 'managed-mcp.json'}\n"
        "Denied, whatever allows them (1 entry):\n"
        "  deniedMcpServers[0] (line 15): server name filesystem\n"
        "Allowed: only those on the list (2 entries); others are blocked.\n"
        "  allowedMcpServers[0] (line 3): remote server at https://*.acme.example/*\n"
        "  allowedMcpServers[1] (line 6): command npx -y @acme/x\n"
        "Only the organisation's servers: yes (allowManagedMcpServersOnly, line 19).\n"
    )

    # Checked before it is placed, by its name or its keys; a mistake blocks nothing and says where.
    draft = home / "draft.json"
    draft.write_text('{\n  "deniedMcpServers": [{"serverUrl": ""}]\n}')
    assert main(["policy", "--file", str(draft)]) == 2
    assert capsys.readouterr().out == (
        f"The server lists cannot be followed, so they block nothing: {draft}, line 2:"
        " deniedMcpServers[0].serverUrl: must be text that is not empty\n"
    )
    (home / "managed-mcp.json").write_text("{not json")
    assert main(["policy"]) == 2
    assert capsys.readouterr().out.endswith(
        f"The server lists cannot be followed, so they block nothing: {home / 'managed-mcp.json'}, line 1:"
        " not valid JSON: Expecting property name enclosed in double quotes\n"
    )


def test_run_never_starts_a_server_the_converged_file_denies(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    marker = home / "ran"
    config = home / "servers.json"
    script = f"open({str(marker)!r}, 'w').write('ran')"
    servers = {
        "fx": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]},
        "marker": {"command": sys.executable, "args": ["-c", script]},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    both = [{"serverCommand": [sys.executable, str(FIXTURE_SCRIPT)]}, {"serverCommand": [sys.executable, "-c", script]}]
    put_managed_mcp(home, monkeypatch, {"allowedMcpServers": both, "deniedMcpServers": [both[1]]})
    with ScriptedLLM() as llm:
        llm.queue(text("Hello."))
        args = ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url]
        assert run_command([*args, "hi"]) == 0
    assert not marker.exists()
    err = capsys.readouterr().err
    assert (
        f"mcp-desk run: warning: server marker is unavailable: {BLOCKED}: 'marker' is on the list of denied servers"
        f" (command {sys.executable} -c {script}) (deniedMcpServers[0])"
    ) in err


def test_install_refuses_what_the_policy_does_not_allow(
    home: Path, registry: RegistryFixture, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / "servers.json"
    put_policy(
        home,
        monkeypatch,
        {
            "servers": {"allow": [{"registry": "io.github.mcp-desk-tests/fixture-*"}]},
            "registry": registry.url,
            "features": {"bundles": False},
        },
    )

    def install(*args: str) -> tuple[int, str]:
        code = install_command([*args, "--config", str(config), "--yes"])
        out, err = capsys.readouterr()
        assert out == "" and not config.exists()  # nothing shown for consent, nothing written
        return code, err

    assert install(HELLO, "--set", "HELLO_TOKEN=t") == (
        2,
        f"mcp-desk install: {BLOCKED}: 'hello' (command npx) is not on the list of servers allowed to run"
        " (servers.allow)\n",
    )
    assert install(HELLO, "--registry", "https://registry.modelcontextprotocol.io") == (  # not even contacted
        2,
        f"mcp-desk install: {BLOCKED}: servers come only from the registry {registry.url} (registry)\n",
    )
    bundles_off = f"mcp-desk install: {BLOCKED}: bundles (.mcpb files) cannot be installed (features.bundles)\n"
    assert install("io.github.mcp-desk-tests/fixture-bundle") == (2, bundles_off)  # allowed by name, but a bundle
    assert install(str(home / "never-opened.mcpb")) == (2, bundles_off)
    with running_domain() as domain:
        code, err = install(domain.host, "--set", "X-Api-Key=k")
    assert code == 2
    assert err == (
        f"mcp-desk install: {BLOCKED}: 'weather' (address {domain.url}) is not on the list of servers allowed"
        " to run (servers.allow)\n"
    )


def test_install_goes_ahead_where_the_policy_allows(
    home: Path, registry: RegistryFixture, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / "servers.json"
    policy = put_policy(home, monkeypatch, {"servers": {"allow": [{"registry": "io.github.mcp-desk-tests/*"}]}})
    args = [HELLO, "--registry", registry.url, "--set", "HELLO_TOKEN=t", "--yes"]
    code = install_command([*args, "--config", str(config)])
    assert code == 0, capsys.readouterr().err
    assert json.loads(config.read_text())["mcpServers"]["hello"]["origin"]["name"] == HELLO
    # It may run: the app recorded this install. Its origin on another launch is only text.
    installed = load_config(config).servers["hello"]
    assert policy.server_refusal(installed) is None
    assert policy.server_refusal(replace(installed, args=(*installed.args, "--more"))) is not None
    assert policy.server_refusal(replace(installed, name="copy")) is not None


def test_search_reads_only_the_pinned_registry(
    home: Path, registry: RegistryFixture, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    put_policy(home, monkeypatch, {"registry": registry.url})
    assert search_command(["hello", "--registry", "https://registry.modelcontextprotocol.io"]) == 2  # not contacted
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"mcp-desk search: {BLOCKED}: servers come only from the registry {registry.url} (registry)\n"

"""`managed-mcp.json`, the server lists in the shape organisations write for other clients: what each entry
matches, deny winning over any allow (here or in policy.json), `allowManagedMcpServersOnly`, and a blocked
local server that is never started."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from desktop_app.core.host import ServerHost
from desktop_app.core.policy.converged import ManagedMcpInForce, parse_server_lists
from desktop_app.core.policy.in_force import policy_in_force
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from tests.policy_files import put_managed_mcp, put_policy

BLOCKED = "blocked by your organisation's policy"
SOURCE = Path("managed-mcp.json")
CONVERGED = {
    "allowedMcpServers": [
        {"serverName": "github"},
        {"serverUrl": "https://*.acme.example/*"},
        {"serverCommand": ["npx", "-y", "@acme/notes"]},
        {"serverCommand": ["/opt/acme/bin/tool", "--safe"]},
    ],
    "deniedMcpServers": [{"serverName": "notes-old"}, {"serverUrl": "https://evil.acme.example/*"}],
    "mcpServers": {"deployed": {"command": "ignored-here"}},
}


def stdio(command: str, *args: str, name: str = "s", env: dict[str, str] | None = None) -> ServerConfig:
    return ServerConfig(name, TransportKind.STDIO, command=command, args=args, env=env or {})


def remote(url: str, name: str = "r") -> ServerConfig:
    return ServerConfig(name, TransportKind.HTTP, url=url)


def lists(document: dict[str, object]) -> ManagedMcpInForce:
    return ManagedMcpInForce(parse_server_lists(json.dumps(document, indent=2), SOURCE), source=SOURCE)


def which(name: str) -> str | None:
    return {"npx": "/usr/local/bin/npx", "tool": "/opt/acme/bin/tool"}.get(name)


@pytest.mark.parametrize(
    ("config", "allowed"),
    [
        (stdio("npx", "-y", "@acme/notes"), True),
        (stdio("/usr/bin/npx", "-y", "@acme/notes"), True),  # a program named without a folder: any folder
        (stdio("npx", "-y", "@acme/notes", "--more"), False),  # every argument, exactly
        (stdio("npx", "-y", "@acme/*"), False),  # no wildcards in a command
        (stdio("/opt/acme/bin/tool", "--safe"), True),
        (stdio("tool", "--safe"), True),  # a bare name runs what the PATH finds: that path
        (stdio("/home/u/tool", "--safe"), False),
        (stdio("npx", "-y", "@acme/notes", env={"NODE_OPTIONS": "--require /tmp/x.js"}), False),
        (stdio("/bin/anything", name="github"), False),  # the list names commands: a name is not enough
        (remote("https://mcp.acme.example/mcp"), True),
        (remote("HTTPS://MCP.ACME.EXAMPLE/mcp"), True),
        (remote("https://acme.example.evil.example/mcp"), False),
        (remote("https://evil.acme.example/mcp"), False),  # denied, though the wildcard allows it
        (remote("https://other.example/mcp", name="github"), False),  # the list names addresses too
        (remote("https://mcp.acme.example/mcp", name="notes-old"), False),  # denied by name
    ],
)
def test_each_entry_matches_what_it_names(config: ServerConfig, allowed: bool) -> None:
    refusal = lists(CONVERGED).refusal(config, which)
    assert (refusal is None) is allowed, refusal


def test_a_name_is_enough_only_where_the_list_names_none_of_its_kind() -> None:
    by_name = lists({"allowedMcpServers": [{"serverName": "github"}]})
    assert by_name.refusal(remote("https://anything.example/mcp", name="github")) is None
    assert by_name.refusal(stdio("/bin/x", name="github")) is None
    refusal = by_name.refusal(stdio("/bin/x", name="gitlab"))
    assert refusal is not None and (refusal.field, refusal.line) == ("allowedMcpServers", 2)
    assert str(refusal) == (
        f"{BLOCKED}: 'gitlab' (command x) is not on the list of servers allowed to run (allowedMcpServers)"
    )


def test_refusals_name_the_entry_that_refused() -> None:
    policy = lists(CONVERGED)
    denied = policy.refusal(remote("https://evil.acme.example/x"), which)
    assert denied is not None and denied.where == "deniedMcpServers[1], line 27"
    assert str(denied) == (
        f"{BLOCKED}: 'r' is on the list of denied servers (remote server at https://evil.acme.example/*)"
        " (deniedMcpServers[1])"
    )
    outside = policy.refusal(stdio("/bin/x", name="github"), which)
    assert outside is not None and str(outside).endswith(
        "is not on the list of servers allowed to run; the list names commands, so a name is not enough"
        " (allowedMcpServers)"
    )
    hooked = policy.refusal(stdio("npx", "-y", "@acme/notes", env={"LD_PRELOAD": "/tmp/x.so"}), which)
    assert hooked is not None and hooked.field == "allowedMcpServers[2]" and "LD_PRELOAD" in hooked.what


def test_only_managed_servers_with_no_list_lets_nothing_run() -> None:
    policy = lists({"allowManagedMcpServersOnly": True})
    refusal = policy.refusal(stdio("/bin/x"))
    assert refusal is not None and refusal.where == "allowManagedMcpServersOnly, line 2"
    assert refusal.what == "only servers on the organisation's list may run, and it lists none"
    listed = lists({"allowManagedMcpServersOnly": True, "allowedMcpServers": [{"serverName": "s"}]})
    assert listed.refusal(stdio("/bin/x")) is None
    assert lists({"allowManagedMcpServersOnly": False}).refusal(stdio("/bin/x")) is None
    assert lists({"allowedMcpServers": []}).refusal(stdio("/bin/x")) is not None  # an empty list: none


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{\n  "deniedMcpServer": []\n}', 2, "deniedMcpServer: is not a policy setting"),
        ('{\n  "allowedMcpServers": [\n    {"serverName": "a", "serverUrl": "b"}\n  ]\n}', 3, "allowedMcpServers[0]:"),
        ('{\n  "deniedMcpServers": [{"serverCommand": "npx -y x"}]\n}', 2, "must be the command and its arguments"),
        ('{\n  "allowManagedMcpServersOnly": "yes"\n}', 2, "allowManagedMcpServersOnly: must be true or false"),
    ],
)
def test_a_mistake_names_line_and_field_and_blocks_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    text: str,
    line: int,
    message: str,
) -> None:
    with caplog.at_level(logging.WARNING):
        policy = put_managed_mcp(tmp_path, monkeypatch, text)
    path = tmp_path / "managed-mcp.json"
    assert policy.managed_mcp.problem is not None and policy.managed_mcp.problem.startswith(f"{path}, line {line}: ")
    assert message in policy.managed_mcp.problem
    assert policy.problem == policy.managed_mcp.problem  # the window's notice says it
    assert policy.server_refusal(stdio("/bin/x")) is None
    assert [r.getMessage() for r in caplog.records].count(f"organisation's policy: {policy.problem}") == 1


def test_both_files_apply_and_deny_wins_over_either_allow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    put_policy(tmp_path, monkeypatch, {"servers": {"allow": [{"command": "/bin/ok", "args": ["**"]}]}})
    policy = put_managed_mcp(
        tmp_path,
        monkeypatch,
        {"allowedMcpServers": [{"serverCommand": ["/bin/ok", "a"]}], "deniedMcpServers": [{"serverName": "bad"}]},
    )
    assert policy.server_refusal(stdio("/bin/ok", "a")) is None
    both = policy.server_refusal(stdio("/bin/ok", "b"))  # policy.json allows it, the converged list does not
    assert both is not None and both.field == "allowedMcpServers"
    assert policy.server_refusal(stdio("/bin/other", "a")).field == "servers.allow"  # type: ignore[union-attr]
    denied = policy.server_refusal(stdio("/bin/ok", "a", name="bad"))  # both allow it; the deny wins
    assert denied is not None and denied.field == "deniedMcpServers[0]"
    assert policy_in_force() is policy  # read once while neither file changes


def marker_server(marker: Path, name: str) -> ServerConfig:
    """Not an MCP server: a process that leaves `marker` behind the moment it runs."""
    script = f"open({str(marker)!r}, 'w').write('ran')"
    return ServerConfig(name, TransportKind.STDIO, command=sys.executable, args=("-c", script))


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"deniedMcpServers": [{"serverName": "marker"}]}, "deniedMcpServers[0]"),
        ({"deniedMcpServers": [{"serverCommand": [sys.executable, "-c", "{script}"]}]}, "deniedMcpServers[0]"),
        ({"allowedMcpServers": [{"serverUrl": "https://*.acme.example/*"}]}, "allowedMcpServers"),
        ({"allowedMcpServers": [{"serverCommand": [sys.executable]}]}, "allowedMcpServers"),  # other arguments
        ({"allowManagedMcpServersOnly": True}, "allowManagedMcpServersOnly"),
        (
            {
                "allowedMcpServers": [{"serverCommand": [sys.executable, "-c", "{script}"]}],
                "deniedMcpServers": [{"serverCommand": [sys.executable, "-c", "{script}"]}],
            },
            "deniedMcpServers[0]",
        ),
    ],
)
async def test_a_blocked_server_never_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, document: dict[str, object], field: str
) -> None:
    marker = tmp_path / "ran"
    config = marker_server(marker, "marker")
    text = json.dumps(document).replace("{script}", json.dumps(config.args[1])[1:-1])
    put_managed_mcp(tmp_path, monkeypatch, text)
    host = ServerHost(policy=RestartPolicy(max_attempts=0))
    try:
        host.start([config])
        status = await host.connection("marker").wait_settled(30)
        assert status.state is ServerState.FAILED and status.attempt == 0
        assert status.reason is not None and status.reason.startswith(BLOCKED) and status.reason.endswith(f"({field})")
        assert host.blocked["marker"].field == field
        assert not marker.exists()
    finally:
        await host.stop_all()


@pytest.mark.anyio
async def test_an_allowed_server_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "ran"
    config = marker_server(marker, "marker")
    allowed = {"allowedMcpServers": [{"serverCommand": [sys.executable, *config.args]}], "deniedMcpServers": []}
    put_managed_mcp(tmp_path, monkeypatch, {**allowed, "allowManagedMcpServersOnly": True})
    host = ServerHost(policy=RestartPolicy(max_attempts=0))
    try:
        host.start([config])
        await host.connection("marker").wait_settled(30)
        assert marker.read_text() == "ran" and "marker" not in host.blocked
    finally:
        await host.stop_all()

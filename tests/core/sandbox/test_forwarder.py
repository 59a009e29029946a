"""The forwarder's command line, in the source tree and in the frozen bundle, and the variables it sets."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop_app.__main__ import main
from desktop_app.core.sandbox import forwarder
from desktop_app.core.sandbox.bubblewrap import PROXY_SOCKET_NAME, Layout, bubblewrap_command
from desktop_app.core.sandbox.settings import SandboxSettings


def test_from_source_it_runs_its_own_file_isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(sys, "frozen", raising=False)
    argv = forwarder.command("/run/p.sock", "node", ["server.js"])
    assert argv[:3] == [sys.executable, "-I", "-S"] and Path(argv[3]) == Path(forwarder.__file__).resolve()
    assert argv[4:] == ["/run/p.sock", "--", "node", "server.js"]


def test_frozen_it_runs_the_bundle_with_the_hidden_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/mcp-desk/mcp-desk")
    argv = forwarder.command("/run/p.sock", "node", [])
    assert argv == ["/opt/mcp-desk/mcp-desk", "--sandbox-forwarder", "/run/p.sock", "--", "node"]


def test_the_hidden_flag_reaches_the_forwarder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sandbox-forwarder", "only-a-socket"]) == 2
    assert "usage: --sandbox-forwarder SOCKET -- COMMAND" in capsys.readouterr().err


def test_every_proxy_variable_points_at_the_loopback_port_and_none_is_exempt() -> None:
    env = forwarder.proxy_environment(4321)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        assert env[name] == "http://127.0.0.1:4321"
    assert env["NO_PROXY"] == env["no_proxy"] == "" and env["NODE_USE_ENV_PROXY"] == "1"


def test_the_proxy_socket_is_bound_read_only_and_the_server_runs_behind_the_forwarder(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    argv = bubblewrap_command(
        "bwrap",
        "node",
        ["server.js"],
        server="s",
        settings=SandboxSettings(allowed_domains=("api.example.com",)),
        roots=(),
        cwd=None,
        layout=Layout(tmp_path / "home", (), tmp_path / "caches"),
        proxy_socket="/tmp/host/proxy.sock",
    )
    inside = f"/run/{PROXY_SOCKET_NAME}"
    where = argv.index("/tmp/host/proxy.sock")
    assert argv[where - 1 : where + 2] == ["--ro-bind", "/tmp/host/proxy.sock", inside]
    assert argv.index("--tmpfs") < where  # after the private /run it lands in
    assert argv[argv.index("--") + 1 :] == forwarder.command(inside, "node", ["server.js"])


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"LD_LIBRARY_PATH": "/opt/mcp-desk/_internal", "PATH": "/usr/bin"}, {"PATH": "/usr/bin"}),
        (
            {"LD_LIBRARY_PATH": "/opt/mcp-desk/_internal:/mine", "LD_LIBRARY_PATH_ORIG": "/mine"},
            {"LD_LIBRARY_PATH": "/mine"},
        ),
    ],
)
def test_the_server_does_not_inherit_the_bundles_library_path(given: dict[str, str], expected: dict[str, str]) -> None:
    environ = dict(given)
    forwarder.loader_as_given(environ)
    assert environ == expected

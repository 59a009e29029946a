"""`mcp-desk install` against a real registry on 127.0.0.1 and bundles built here.

What is checked: the exact command is printed whole with the warning, the prompt (or `--yes`)
decides, `--set` answers the server's questions, secrets reach the store and not the file, and
every failure is one line with exit 2 and leaves servers.json as it was. The commands run in-process;
one runs as its own process, the real entry point answering the real prompt (`test_prompt_decides`).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.__main__ import main
from desktop_app.cli.install import describe_consent, install_command
from desktop_app.core.paths import data_dir
from desktop_app.core.registry.bundle import bundles_dir
from desktop_app.core.registry.install import InstallConsent
from desktop_app.core.registry.sandbox_offer import SandboxOffer
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.secret_store import PLAINTEXT_FILENAME, open_secret_store
from tests.servers.registry_documents import (
    build_mcpb,
    bundle_entry,
    fixture_python_bundle,
    populate,
    python_bundle_manifest,
    simple,
)
from tests.servers.registry_fixture import RegistryFixture, response, running_registry

ROOT = Path(__file__).resolve().parents[2]
HELLO = "io.github.mcp-desk-tests/hello"
NPX = shutil.which("npx")


@pytest.fixture
def registry() -> Iterator[RegistryFixture]:
    with running_registry() as fixture:
        populate(fixture)
        yield fixture


@pytest.fixture
def config(home: Path) -> Path:
    return home / "servers.json"


def entries(config: Path) -> dict[str, dict[str, object]]:
    return json.loads(config.read_text())["mcpServers"]  # type: ignore[no-any-return]


def install_in_a_process(*args: str, stdin: str) -> tuple[int, str, str]:
    """The real `mcp-desk install` as its own process, so the exit code and the terminal prompt are real."""
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app", "install", *args],
        cwd=ROOT,
        env=dict(os.environ),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=90,
    )
    return done.returncode, done.stdout, done.stderr


def test_yes_installs_with_the_whole_command_printed(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = install_command(
        [
            HELLO,
            "--registry",
            registry.url,
            "--config",
            str(config),
            "--set",
            "HELLO_TOKEN=tok-123",
            "--set",
            "audience=Grace Hopper",
            "--yes",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.splitlines() == [
        "Install 'hello': npm package @mcp-desk-tests/hello 1.0.0",
        f"Command: {NPX} -y --registry {registry.npm_url} -- @mcp-desk-tests/hello@1.0.0 'Grace Hopper'",
        "Environment: HELLO_GREETING=hello",
        "Environment: HELLO_TOKEN=${secret:HELLO_TOKEN}",
        f"Stored in a plaintext file, not encrypted ({data_dir() / PLAINTEXT_FILENAME}): HELLO_TOKEN",
        "Sandbox: on (bubblewrap): it reads your files but not your keys, tokens or MCP Desk's own folders",
        "  May write to: only its own temporary folders",
        "  May connect to: 127.0.0.1 (npx downloads the package from it when the server first starts)",
        "  To run it without the sandbox, install it with --no-sandbox.",
        "Warning: This command will run on your computer with your permissions. Install only servers you trust.",
        f"Added 'hello' to {config}.",
    ]
    entry = entries(config)["hello"]
    assert entry["command"] == NPX  # the runner as the app's PATH found it, stored and shown
    assert entry["args"] == ["-y", "--registry", registry.npm_url, "--", "@mcp-desk-tests/hello@1.0.0", "Grace Hopper"]
    # Sandboxed by default; the npm registry the fixture serves on 127.0.0.1 is the one host it may reach.
    assert entry["sandboxEnabled"] is True and entry["sandbox"] == {"network": {"allowedDomains": ["127.0.0.1"]}}
    assert "tok-123" not in config.read_text()
    assert open_secret_store(data_dir()).get("HELLO_TOKEN") == "tok-123"


def test_prompt_decides(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one `mcp-desk install` in a process of its own (this file's smoke test): the prompt on stdout, the
    answer from stdin, exit 1 and one line on stderr when declined; the other answers in-process."""
    base = [HELLO, "--registry", registry.url, "--config", str(config), "--set", "HELLO_TOKEN=t"]
    code, out, err = install_in_a_process(*base, stdin="n\n")
    assert code == 1 and "Add it to servers.json? [y/N]" in out and err == "Nothing was installed.\n"
    assert not config.exists()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no answer at all declines too
    code = main(["install", *base])
    assert code == 1 and not config.exists()
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    code = main(["install", *base])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"Command: {NPX} -y" in out and "Warning:" in out and list(entries(config)) == ["hello"]


def test_remote_install(registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = install_command(
        [
            "io.github.acme/weather",
            "--registry",
            registry.url,
            "--config",
            str(config),
            "--package",
            "remote",
            "--set",
            "tenant=acme",
            "--set",
            "token=abc",
            "--yes",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "URL: https://acme.weather.example/mcp" in out and "Sandbox" not in out  # a remote has none
    assert "Header: Authorization: Bearer ${secret:WEATHER_TOKEN}" in out
    assert "connect to this address and send it the headers below" in out
    assert entries(config)["weather"] == {
        "type": "http",
        "url": "https://acme.weather.example/mcp",
        "headers": {"Authorization": "Bearer ${secret:WEATHER_TOKEN}", "X-Region": "eu-west-1"},
        "origin": {"registry": registry.url, "name": "io.github.acme/weather", "version": "0.5.0", "package": "remote"},
    }


def test_no_sandbox_saves_it_off_and_the_consent_says_so(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [HELLO, "--registry", registry.url, "--config", str(config), "--set", "HELLO_TOKEN=t", "--yes"]
    assert install_command([*args, "--no-sandbox"]) == 0
    out = capsys.readouterr().out
    assert (
        "Sandbox: off. Without the sandbox it runs with your permissions: it can read your keys and tokens,"
        " change any of your files and connect anywhere.\n"
    ) in out
    assert "May connect to" not in out
    entry = entries(config)["hello"]
    assert "sandboxEnabled" not in entry and entry["sandbox"] == {"network": {"allowedDomains": ["127.0.0.1"]}}


def test_an_update_keeps_running_without_the_sandbox_when_the_user_chose_so(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [HELLO, "--registry", registry.url, "--config", str(config), "--yes"]
    assert install_command([*base, "--version", "0.9.0", "--set", "HELLO_TOKEN=t", "--no-sandbox"]) == 0
    capsys.readouterr()
    assert install_command(base) == 0  # the update: no flag, the user's earlier choice stands
    out = capsys.readouterr().out
    assert "(update from 0.9.0)" in out and "Sandbox: off." in out
    assert "sandboxEnabled" not in entries(config)["hello"]


def test_a_pypi_package_is_sandboxed_and_reaches_pypi(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # its uvx
    args = ["io.github.acme/weather", "--registry", registry.url, "--config", str(config), "--package", "pypi"]
    assert install_command([*args, "--set", "WEATHER_API_KEY=k", "--yes"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    why = "uvx downloads the package from it when the server first starts"
    assert f"  May connect to: pypi.org ({why}); files.pythonhosted.org ({why})\n" in out
    entry = entries(config)["weather"]
    assert entry["args"][-2:] == ["weather-mcp-server==0.5.0", "serve"]  # type: ignore[index]
    assert entry["sandboxEnabled"] is True
    assert entry["sandbox"] == {"network": {"allowedDomains": ["pypi.org", "files.pythonhosted.org"]}}


def test_a_filesystem_servers_folder_becomes_writable(
    registry: RegistryFixture, config: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = home / "notes"
    notes.mkdir()
    package = {
        "registryType": "npm",
        "identifier": "@acme/server-filesystem",
        "version": "1.0.2",
        "transport": {"type": "stdio"},
        "packageArguments": [
            {"type": "positional", "valueHint": "target_dir", "description": "Path to access", "isRequired": True}
        ],
    }
    registry.add(response(simple("io.github.acme/filesystem", "Files", packages=[package])))
    args = ["io.github.acme/filesystem", "--registry", registry.url, "--config", str(config)]
    assert install_command([*args, "--set", f"target_dir={notes}", "--yes"]) == 0, capsys.readouterr().err
    assert f"  May write to: {notes} (you gave it as target_dir)\n" in capsys.readouterr().out
    entry = entries(config)["filesystem"]
    assert entry["sandboxEnabled"] is True
    assert entry["sandbox"] == {
        "filesystem": {"allowWrite": [str(notes)]},
        "network": {"allowedDomains": ["registry.npmjs.org"]},
    }


def test_updates_reuse_the_entry_and_its_secret(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [HELLO, "--registry", registry.url, "--config", str(config), "--yes"]
    assert install_command([*base, "--version", "0.9.0", "--set", "HELLO_TOKEN=t"]) == 0
    assert entries(config)["hello"]["origin"]["version"] == "0.9.0"  # type: ignore[index]
    capsys.readouterr()
    assert install_command(base) == 0  # the stored secret is kept; no --set needed
    out = capsys.readouterr().out
    assert out.startswith("Install 'hello': npm package @mcp-desk-tests/hello 1.0.0 (update from 0.9.0)")
    assert list(entries(config)) == ["hello"] and entries(config)["hello"]["origin"]["version"] == "1.0.0"  # type: ignore[index]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([HELLO], "mcp-desk install: HELLO_TOKEN is required\n"),
        (
            [HELLO, "--set", "HELO_TOKEN=x"],
            "mcp-desk install: unknown setting HELO_TOKEN (this server takes: audience, HELLO_GREETING, HELLO_TOKEN)\n",
        ),
        ([HELLO, "--set", "novalue"], "mcp-desk install: --set needs KEY=VALUE, got 'novalue'\n"),
        (["io.github.nobody/nothing"], "mcp-desk install: io.github.nobody/nothing is not in the registry at "),
        (["io.github.acme/gone"], "mcp-desk install: io.github.acme/gone is not in the registry at "),
        (
            ["io.github.acme/broken"],
            "mcp-desk install: the registry's entry for io.github.acme/broken is malformed:"
            " server.description is missing\n",
        ),
        ([HELLO, "--package", "oci"], "mcp-desk install: this server offers no oci install (it offers: npm)\n"),
    ],
)
def test_errors_exit_2_with_one_line_and_touch_nothing(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    config.write_text('{"mcpServers": {}}\n')
    assert install_command([*args, "--registry", registry.url, "--config", str(config), "--yes"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert config.read_text() == '{"mcpServers": {}}\n'


def test_registry_down_or_slow(registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    registry.down = True
    code = main(["install", HELLO, "--registry", registry.url, "--config", str(config), "--yes"])
    out, err = capsys.readouterr()
    path = "/v0.1/servers/io.github.mcp-desk-tests%2Fhello/versions/latest"
    assert (code, out) == (2, "")
    assert err == f"mcp-desk install: the registry at {registry.url} answered HTTP 503 for {path}\n"
    assert not config.exists()


def test_broken_servers_json_is_left_alone(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config.write_text('{"mcpServers": ')
    assert install_command([HELLO, "--registry", registry.url, "--config", str(config), "--yes"]) == 2
    assert capsys.readouterr().err.startswith("mcp-desk install: fix servers.json first: servers.json, line 1")
    assert config.read_text() == '{"mcpServers": '


def test_bundle_file(
    config: Path, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    path = home / "fixture.mcpb"
    path.write_bytes(fixture_python_bundle())
    assert install_command([str(path), "--config", str(config), "--set", "token=s3", "--yes"]) == 0
    out = capsys.readouterr().out
    folder = bundles_dir() / "fixture-bundle-1.0.0"
    assert f"Command: {shutil.which('python')} {folder}/server/fixture_server.py --secret-echo" in out
    entry = entries(config)["fixture-bundle"]
    assert entry["origin"]["bundle"] == str(folder) and (folder / "server" / "fixture_server.py").is_file()  # type: ignore[index]
    assert entry["env"] == {"FIXTURE_TOKEN": "${secret:FIXTURE-BUNDLE_TOKEN}", "FIXTURE_HOME": str(Path.home())}
    assert entry["sandboxEnabled"] is True and "sandbox" not in entry  # sandboxed, granted nothing more
    assert "Sandbox: on (bubblewrap)" in out and "  May connect to: nothing (no network)" in out


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"../escape.txt": b"x"}, "the bundle is unsafe: '../escape.txt' would be written outside its folder"),
        ({}, "this bundle needs a 'deno' runtime, which MCP Desk cannot run"),
    ],
)
def test_bad_bundle_files(
    config: Path, home: Path, capsys: pytest.CaptureFixture[str], files: dict[str, bytes], message: str
) -> None:
    doc = python_bundle_manifest()
    if not files:
        doc["server"]["type"] = "deno"
    path = home / "bad.mcpb"
    path.write_bytes(build_mcpb(doc, {"server/fixture_server.py": b"", **files}))
    assert install_command([str(path), "--config", str(config), "--set", "token=x", "--yes"]) == 2
    assert capsys.readouterr().err.startswith(f"mcp-desk install: {message}")
    assert not config.exists() and not bundles_dir().exists()


def test_registry_bundle_with_a_wrong_checksum(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = fixture_python_bundle()
    registry.add(response(bundle_entry(registry, data, sha=hashlib.sha256(b"other").hexdigest())))
    args = ["io.github.mcp-desk-tests/fixture-bundle", "--registry", registry.url, "--config", str(config)]
    assert install_command([*args, "--set", "token=x", "--yes"]) == 2
    assert "does not match the registry's checksum" in capsys.readouterr().err
    assert not config.exists() and not bundles_dir().exists()


def test_registry_bundle(
    registry: RegistryFixture, config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    registry.add(response(bundle_entry(registry, fixture_python_bundle())))
    args = ["io.github.mcp-desk-tests/fixture-bundle", "--registry", registry.url, "--config", str(config)]
    assert install_command([*args, "--set", "token=x", "--yes"]) == 0, capsys.readouterr().err
    origin = entries(config)["fixture-bundle"]["origin"]
    assert origin["registry"] == registry.url and origin["name"] == "io.github.mcp-desk-tests/fixture-bundle"  # type: ignore[index]
    assert origin["package"] == "mcpb" and len(origin["sha256"]) == 64  # type: ignore[index]


def test_where_nothing_can_sandbox_the_printed_consent_says_it_will_not_start() -> None:
    problem = "bubblewrap (bwrap) is not installed: install the bubblewrap package; and Landlock is off"
    offer = SandboxOffer(SandboxSettings(allowed_domains=("registry.npmjs.org",)), True, problem=problem)
    consent = InstallConsent(server="files", source="npm package files 1.0.0", command=("/usr/bin/npx",), sandbox=offer)
    assert describe_consent(consent).splitlines()[2:6] == [
        "Sandbox: on: it reads your files but not your keys, tokens or MCP Desk's own folders",
        "  May write to: only its own temporary folders",
        "  May connect to: registry.npmjs.org",
        f"  This computer cannot sandbox it now: {problem}. Sandboxed, it will not start until that is fixed;"
        " to run it without, install it with --no-sandbox.",
    ]

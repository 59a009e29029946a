"""`.mcpb` bundles built by the tests: checks before anything is written, the entry they make, files."""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.expansion import resolve_server
from desktop_app.core.registry.bundle import (
    Bundle,
    open_bundle_file,
    read_bundle,
    remove_bundle_files,
    verify_sha256,
)
from desktop_app.core.registry.bundle_plan import plan_bundle
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.manifest import BundleError
from desktop_app.core.registry.plan import command_line
from tests.servers.registry_documents import (
    build_mcpb,
    fixture_binary_bundle,
    fixture_python_bundle,
    manifest,
    python_bundle_manifest,
)

SCRIPT = {"server/fixture_server.py": b"print('hi')\n"}


def which(*present: str) -> Callable[[str], str | None]:
    return lambda name: f"/usr/bin/{name}" if name in present else None


def test_reads_the_manifest() -> None:
    bundle = read_bundle(fixture_python_bundle())
    m = bundle.manifest
    assert (m.name, m.title, m.version, m.server_type, m.author) == (
        "fixture-bundle",
        "Fixture bundle",
        "1.0.0",
        "python",
        "MCP Desk tests",
    )
    assert m.mcp_config is not None and m.mcp_config.command == "python"
    assert [o.key for o in m.user_config] == ["token", "workdir"] and m.tools == ("echo",)
    assert [f.secret for f in m.fields()] == [True, False]
    assert m.fields()[1].default == str(Path.home())  # `${HOME}` shown as the folder it names
    assert "server/fixture_server.py" in bundle.members


@pytest.mark.parametrize(
    ("files", "links", "message"),
    [
        ({"../evil.sh": b"x"}, {}, r"'../evil.sh' would be written outside its folder"),
        ({"server/../../evil.sh": b"x"}, {}, r"would be written outside its folder"),
        ({"/etc/cron.d/evil": b"x"}, {}, r"'/etc/cron.d/evil' would be written outside"),
        ({"C:/Windows/evil.dll": b"x"}, {}, r"would be written outside"),
        ({"..\\evil.bat": b"x"}, {}, r"would be written outside"),
        ({}, {"server/link": "/etc/passwd"}, r"'server/link' is a link"),
    ],
)
def test_zip_slip_and_links_are_refused(files: dict[str, bytes], links: dict[str, str], message: str) -> None:
    data = build_mcpb(python_bundle_manifest(), {**SCRIPT, **files}, links=links)
    with pytest.raises(BundleError, match=f"^the bundle is unsafe: .*{message}"):
        read_bundle(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"PK\x03\x04 not really", "not an .mcpb bundle"),
        (build_mcpb(None, SCRIPT), "no manifest.json at its root"),
        (build_mcpb(None, {"manifest.json": b"{oops"}), "manifest.json is not valid JSON"),
        (
            build_mcpb(manifest({"type": "deno", "entry_point": "x.ts"})),
            "needs a 'deno' runtime, which MCP Desk cannot",
        ),
        (
            build_mcpb(manifest({"type": "node"}, compatibility={"platforms": ["win32", "darwin"]})),
            "runs on Windows, macOS only",
        ),
        (build_mcpb({"name": "x", "server": {"type": "node"}}), "manifest.json: version is missing"),
    ],
)
def test_bad_bundles_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(BundleError, match=message):
        read_bundle(data, platform="linux")


def test_checksum() -> None:
    data = fixture_python_bundle()
    verify_sha256(data, hashlib.sha256(data).hexdigest())
    with pytest.raises(BundleError, match=r"does not match the registry's checksum .* nothing was installed"):
        verify_sha256(data + b"tampered", hashlib.sha256(data).hexdigest())


def test_python_bundle_entry(tmp_path: Path) -> None:
    bundle = read_bundle(fixture_python_bundle())
    plan = plan_bundle(bundle, {"token": ("t0k3n",)}, entry_name="fixture", root=tmp_path, which=which("python"))
    folder = tmp_path / "fixture-1.0.0"
    assert command_line(plan.config) == ["/usr/bin/python", f"{folder}/server/fixture_server.py", "--secret-echo"]
    assert plan.config.env == {"FIXTURE_TOKEN": "${secret:FIXTURE_TOKEN}", "FIXTURE_HOME": str(Path.home())}
    assert plan.secrets == {"FIXTURE_TOKEN": "t0k3n"}
    assert plan.config.origin["bundle"] == str(folder) and plan.config.origin["package"] == "mcpb"
    assert plan.config.origin["sha256"] == bundle.sha256
    assert not folder.exists()  # nothing written before consent
    with pytest.raises(PlanError, match=r"^Token is required$"):
        plan_bundle(bundle, {}, entry_name="fixture", root=tmp_path, which=which("python"))
    with pytest.raises(PlanError, match=r"unknown setting tokn \(this bundle takes: token, workdir\)"):
        plan_bundle(bundle, {"tokn": ("x",)}, entry_name="fixture", root=tmp_path, which=which("python"))


def test_runtime_lookup(tmp_path: Path) -> None:
    bundle = read_bundle(fixture_python_bundle())
    plan = plan_bundle(bundle, {"token": ("t",)}, entry_name="fx", root=tmp_path, which=which("python3"))
    assert plan.config.command == "/usr/bin/python3"  # where only python3 exists, by the path found
    with pytest.raises(PlanError, match=r"python was not found: install Python 3 to run this bundle"):
        plan_bundle(bundle, {"token": ("t",)}, entry_name="fx", root=tmp_path, which=which())
    node = read_bundle(
        build_mcpb(manifest({"type": "node", "entry_point": "server/index.js"}), {"server/index.js": b""})
    )
    with pytest.raises(PlanError, match=r"node was not found: install Node.js to run this bundle"):
        plan_bundle(node, {}, entry_name="n", root=tmp_path, which=which())
    plan = plan_bundle(node, {}, entry_name="n", root=tmp_path, which=which("node"))
    assert command_line(plan.config) == [
        "/usr/bin/node",
        f"{tmp_path}/n-1.0.0/server/index.js",
    ]  # no mcp_config: the default
    missing = read_bundle(build_mcpb(manifest({"type": "node", "entry_point": "server/gone.js"})))
    with pytest.raises(BundleError, match=r"entry point 'server/gone.js' is not in the bundle"):
        plan_bundle(missing, {}, entry_name="n", root=tmp_path, which=which("node"))


def test_uv_bundle_runs_in_its_project(tmp_path: Path) -> None:
    doc = manifest({"type": "uv", "entry_point": "src/server.py"}, manifest_version="0.4")
    bundle = read_bundle(build_mcpb(doc, {"src/server.py": b"", "pyproject.toml": b""}))
    plan = plan_bundle(bundle, {}, entry_name="u", root=tmp_path, which=which("uv"))
    assert command_line(plan.config) == ["/usr/bin/uv", "run", "--directory", f"{tmp_path}/u-1.0.0", "src/server.py"]


def test_multiple_values_expand_to_arguments(tmp_path: Path) -> None:
    doc = manifest(
        {
            "type": "node",
            "entry_point": "i.js",
            "mcp_config": {"command": "node", "args": ["i.js", "${user_config.dirs}", "--x=${user_config.flag}"]},
        },
        user_config={
            "dirs": {"type": "directory", "title": "Dirs", "description": "", "multiple": True},
            "flag": {"type": "boolean", "title": "Flag", "description": "", "default": False},
            "size": {"type": "number", "title": "Size", "description": "", "min": 1, "max": 5},
        },
    )
    bundle = read_bundle(build_mcpb(doc, {"i.js": b""}))
    plan = plan_bundle(bundle, {"dirs": ("/a", "/b c")}, entry_name="m", root=tmp_path, which=which("node"))
    assert plan.config.args == ("i.js", "/a", "/b c", "--x=false")
    empty = plan_bundle(bundle, {}, entry_name="m", root=tmp_path, which=which("node"))
    assert empty.config.args == ("i.js", "--x=false")
    with pytest.raises(PlanError, match=r"Size must be between 1 and 5"):
        plan_bundle(bundle, {"size": ("9",)}, entry_name="m", root=tmp_path, which=which("node"))


def test_binary_bundle_is_unpacked_executable_and_removed(tmp_path: Path) -> None:
    bundle = read_bundle(fixture_binary_bundle())
    plan = plan_bundle(bundle, {}, entry_name="bin", root=tmp_path, which=which())
    folder = tmp_path / "bin-1.0.0"
    assert plan.config.command == str(folder / "server" / "fixture") and plan.config.args == ()
    assert plan.staged is not None
    plan.staged.commit()
    binary = folder / "server" / "fixture"
    assert binary.read_bytes().startswith(f"#!{sys.executable}".encode())
    assert os.stat(binary).st_mode & stat.S_IXUSR
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".unpacking-")]
    assert remove_bundle_files(plan.config, tmp_path) and not folder.exists()


def test_removal_stays_inside_the_bundles_folder(tmp_path: Path) -> None:
    outside = tmp_path / "precious"
    outside.mkdir()
    bundle = read_bundle(fixture_binary_bundle())
    plan = plan_bundle(bundle, {}, entry_name="bin", root=tmp_path / "bundles", which=which())
    hostile = replace(plan.config, origin={**plan.config.origin, "bundle": str(outside)})
    assert not remove_bundle_files(hostile, tmp_path / "bundles") and outside.exists()
    root = replace(plan.config, origin={**plan.config.origin, "bundle": str(tmp_path / "bundles")})
    assert not remove_bundle_files(root, tmp_path / "bundles")


def test_versions_side_by_side(tmp_path: Path) -> None:
    bundle = read_bundle(fixture_binary_bundle())
    first = plan_bundle(bundle, {}, entry_name="bin", root=tmp_path, which=which())
    assert first.staged is not None
    first.staged.commit()
    second = plan_bundle(bundle, {}, entry_name="bin", root=tmp_path, which=which())
    assert second.config.origin["bundle"] == str(tmp_path / "bin-1.0.0-2")


def test_open_bundle_file(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match=r"cannot read .*missing.mcpb"):
        open_bundle_file(tmp_path / "missing.mcpb")
    path = tmp_path / "ok.mcpb"
    path.write_bytes(fixture_python_bundle())
    assert open_bundle_file(path).manifest.name == "fixture-bundle"


# --- hostile manifests -------------------------------------------------------------------------


def node_bundle(mcp_config: dict[str, object], **user_config: dict[str, object]) -> Bundle:
    doc = manifest({"type": "node", "entry_point": "i.js", "mcp_config": mcp_config}, user_config=user_config)
    return read_bundle(build_mcpb(doc, {"i.js": b""}))


@pytest.mark.parametrize(
    "name",
    ["PATH", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS", "PYTHONPATH", "npm_config_registry", "BASH_ENV"],
)
def test_an_environment_that_changes_what_runs_is_refused(tmp_path: Path, name: str) -> None:
    bundle = node_bundle({"command": "node", "args": ["i.js"], "env": {"LOG": "1", name: "${__dirname}/x"}})
    with pytest.raises(
        BundleError, match=rf"^the bundle sets {name}, which changes which program runs .*may not set it$"
    ):
        plan_bundle(bundle, {}, entry_name="n", root=tmp_path, which=which("node"))


def test_only_the_formats_variables_are_filled_in(tmp_path: Path) -> None:
    word = {"type": "string", "title": "Word", "description": ""}
    token = {"type": "string", "title": "Token", "description": "", "sensitive": True}
    bundle = node_bundle(
        {
            "command": "node",
            "args": [
                "${__dirname}/i.js",
                "--k=${secret:LLM_API_KEY_OPENAI}",
                "${user_config.word}{HOME}",
                "-t",
                "${user_config.token}",
            ],
            "env": {"E": "${OPENAI_API_KEY}", "D": "${HOME}/x", "U": "${user_config.word}"},
        },
        word=word,
        token=token,
    )
    # The user's `a$` meets the manifest's `{HOME}`: written piece by piece that made `${HOME}`.
    plan = plan_bundle(
        bundle, {"word": ("a$",), "token": ("tok",)}, entry_name="fx", root=tmp_path, which=which("node")
    )
    assert plan.notes == (
        "The bundle's manifest names ${secret:LLM_API_KEY_OPENAI}, ${OPENAI_API_KEY}, which bundles cannot read:"
        " the server gets that text as written.",
    )
    stored = {"LLM_API_KEY_OPENAI": "sk-stored", "FX_TOKEN": "tok"}
    resolved = resolve_server(plan.config, stored, {"OPENAI_API_KEY": "sk-env", "HOME": "/home/me"}).config
    folder = tmp_path / "fx-1.0.0"
    assert resolved.args == (f"{folder}/i.js", "--k=${secret:LLM_API_KEY_OPENAI}", "a${HOME}", "-t", "tok")
    assert resolved.env == {"E": "${OPENAI_API_KEY}", "D": f"{Path.home()}/x", "U": "a$"}
    assert plan.config.args[-1] == "${secret:FX_TOKEN}" and plan.secrets == {"FX_TOKEN": "tok"}


def test_secrets_stay_out_of_the_command_and_keep_their_own_text(tmp_path: Path) -> None:
    token = {"type": "string", "title": "Token", "description": "", "sensitive": True}
    in_command = node_bundle({"command": "${user_config.token}", "args": []}, token=token)
    with pytest.raises(BundleError, match=r"^the bundle's command names a secret setting"):
        plan_bundle(in_command, {"token": ("t",)}, entry_name="fx", root=tmp_path, which=which("node"))
    # `$` right before a secret has no way to be written in servers.json: refused, not mangled.
    glued = node_bundle({"command": "node", "args": ["i.js", "--t=$${user_config.token}"]}, token=token)
    with pytest.raises(PlanError, match=r"cannot have a '\$' right before a secret"):
        plan_bundle(glued, {"token": ("t",)}, entry_name="fx", root=tmp_path, which=which("node"))

"""The sandbox a new install gets: on for npm and PyPI packages and bundles, with the rights derived from what
they declare (a folder the user gave becomes allowWrite, a host a value names and the runner's package
registry become allowedDomains), none for remotes and container images."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.registry.bundle import read_bundle
from desktop_app.core.registry.bundle_plan import plan_bundle
from desktop_app.core.registry.model import ServerEntry, parse_entry
from desktop_app.core.registry.plan import DOCKER_NOTE, InstallPlan, plan_package, plan_remote
from desktop_app.core.sandbox.defaults import NPM_HOSTS, PYPI_HOSTS, Rights
from desktop_app.core.sandbox.settings import SandboxSettings
from tests.servers.registry_documents import build_mcpb, manifest, python_bundle_manifest, simple, weather
from tests.servers.registry_fixture import response

REGISTRY = "https://registry.example"
SCRIPT = {"server/main.py": b"print('hi')\n"}


def which(*present: str) -> Callable[[str], str | None]:
    return lambda name: f"/usr/bin/{name}" if name in present else None


@pytest.fixture
def weather_entry() -> ServerEntry:
    return parse_entry(response(weather()))


def entry_with(**package: Any) -> ServerEntry:
    base = {"registryType": "npm", "identifier": "@acme/files", "version": "2.0.0", "transport": {"type": "stdio"}}
    return parse_entry(response(simple("io.github.acme/files", "Files", packages=[{**base, **package}])))


def plan_npm(answers: dict[str, tuple[str, ...]] | None = None, **package: Any) -> InstallPlan:
    entry = entry_with(**package)
    return plan_package(
        entry, entry.server.packages[0], answers or {}, entry_name="files", registry_url=REGISTRY, which=which("npx")
    )


def test_an_npm_package_is_sandboxed_and_reaches_the_npm_registry_only() -> None:
    plan = plan_npm()
    assert plan.config.sandbox_enabled
    assert plan.config.sandbox == SandboxSettings(allowed_domains=NPM_HOSTS)
    assert plan.sandbox_why == {"registry.npmjs.org": "npx downloads the package from it when the server first starts"}


def test_a_pypi_package_reaches_pypi_and_its_file_host_and_another_index_only_that_index() -> None:
    entry = parse_entry(response(weather()))
    pypi = entry.server.packages[0]
    answers = {"WEATHER_API_KEY": ("k",)}
    plan = plan_package(entry, pypi, answers, entry_name="weather", registry_url=REGISTRY, which=which("uvx"))
    assert plan.config.sandbox_enabled and plan.config.sandbox is not None
    assert plan.config.sandbox.allowed_domains == PYPI_HOSTS == ("pypi.org", "files.pythonhosted.org")
    assert plan.sandbox_why["pypi.org"] == "uvx downloads the package from it when the server first starts"
    own = plan_npm(registryBaseUrl="https://npm.acme.example/")
    assert own.config.sandbox == SandboxSettings(allowed_domains=("npm.acme.example",))


def test_a_public_registrys_entry_cannot_open_the_way_to_a_package_registry_in_the_users_network() -> None:
    entry = entry_with(registryBaseUrl="http://192.168.1.5:4873/")

    def plan_from(registry_url: str) -> InstallPlan:
        package = entry.server.packages[0]
        return plan_package(entry, package, {}, entry_name="f", registry_url=registry_url, which=which("npx"))

    public = plan_from("https://registry.example")
    assert public.config.sandbox_enabled and public.config.sandbox is None
    assert public.notes == (  # npx cannot download it: the consent says why
        "Its package registry 192.168.1.5 is on this computer or your network, named by a registry that is not:"
        " the sandbox does not let it connect there, so npx cannot download the package.",
    )
    inside = plan_from("http://10.0.0.2:8080")  # the organisation's own registry may name its own npm mirror
    assert inside.config.sandbox == SandboxSettings(allowed_domains=("192.168.1.5",))


def test_a_folder_the_user_gives_becomes_writable(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    arguments = [
        # As the registry's filesystem example declares it: no format, the folder named by its hint.
        {"type": "positional", "valueHint": "target_dir", "isRequired": True, "isRepeated": True},
        {"type": "named", "name": "--db", "format": "filepath"},
        {"type": "named", "name": "--greeting"},
    ]
    answers = {
        "target_dir": (str(notes), "/", "relative/folder", str(tmp_path / "missing")),
        "--db": ("~/data/files.db",),
        "--greeting": ("hello",),
    }
    plan = plan_npm(answers, packageArguments=arguments)
    assert plan.config.sandbox is not None
    # The folder that exists and the filepath; never the whole filesystem, a relative or a missing plain value.
    assert plan.config.sandbox.allow_write == (str(notes), "~/data/files.db")
    assert plan.sandbox_why[str(notes)] == "you gave it as target_dir"
    assert plan.sandbox_why["~/data/files.db"] == "you gave it as --db"
    # A publisher's default is granted too (the form shows it), and the consent says whose it was.
    defaulted = [{"type": "positional", "valueHint": "target_dir", "format": "filepath", "default": "~/Desktop"}]
    plan = plan_npm(packageArguments=defaulted)
    assert plan.sandbox_why == {"~/Desktop": "the default of target_dir", **plan_npm().sandbox_why}


def test_hosts_its_values_name_become_reachable_but_not_this_computer_nor_a_secret() -> None:
    env = [
        {"name": "API_URL", "default": "https://api.acme.example/v1"},
        {"name": "LOCAL", "default": "http://localhost:8080 http://192.168.1.10/ http://127.0.0.1:9/"},
        {"name": "WEBHOOK", "isSecret": True, "isRequired": True},
    ]
    arguments = [{"type": "named", "name": "--mirror", "value": "--mirror=wss://Mirror.Acme.example:8443/feed"}]
    plan = plan_npm({"WEBHOOK": ("https://hooks.secret.example/abc",)}, environmentVariables=env)
    assert plan.config.sandbox is not None
    assert plan.config.sandbox.allowed_domains == ("api.acme.example", *NPM_HOSTS)
    assert plan.sandbox_why["api.acme.example"] == "API_URL names it"
    with_argument = plan_npm(packageArguments=arguments)
    assert with_argument.config.sandbox is not None
    assert with_argument.config.sandbox.allowed_domains == ("mirror.acme.example", *NPM_HOSTS)


def test_a_container_image_and_a_remote_get_no_sandbox(weather_entry: ServerEntry) -> None:
    oci = weather_entry.server.packages[1]
    answers = {"WEATHER_API_KEY": ("k",), "cache_dir": ("/srv/cache",)}
    plan = plan_package(weather_entry, oci, answers, entry_name="w", registry_url=REGISTRY, which=which("docker"))
    assert not plan.config.sandbox_enabled and plan.config.sandbox is None
    assert DOCKER_NOTE in plan.notes  # said in the consent, not silently left out
    remote = plan_remote(
        weather_entry,
        weather_entry.server.remotes[0],
        {"tenant": ("acme",), "token": ("t",)},
        entry_name="w",
        registry_url=REGISTRY,
    )
    assert not remote.config.sandbox_enabled and remote.config.sandbox is None


def test_a_bundle_is_sandboxed_and_may_write_the_folders_chosen_for_its_settings(tmp_path: Path) -> None:
    doc = python_bundle_manifest()
    doc["server"]["mcp_config"]["args"].append("${user_config.roots}")
    doc["server"]["mcp_config"]["env"]["API"] = "https://api.bundle.example/v2"
    doc["user_config"]["roots"] = {"type": "directory", "title": "Folders", "multiple": True}
    doc["user_config"]["cache"] = {"type": "directory", "title": "Cache", "default": "${HOME}/.cache/fixture"}
    doc["server"]["mcp_config"]["args"].append("--cache=${user_config.cache}")
    bundle = read_bundle(build_mcpb(doc, {"server/fixture_server.py": b""}))
    answers = {"token": ("t",), "roots": ("/srv/a", "~/b"), "workdir": ("/srv/unused",)}
    plan = plan_bundle(bundle, answers, entry_name="fixture", root=tmp_path, which=which("python"))
    assert plan.config.sandbox_enabled
    # `workdir` is asked but never passed to the server: no reason to let it write there.
    cache = f"{Path.home()}/.cache/fixture"
    assert plan.config.sandbox == SandboxSettings(
        allow_write=("/srv/a", "~/b", cache), allowed_domains=("api.bundle.example",)
    )
    assert plan.sandbox_why == {
        "/srv/a": "you chose it as Folders",
        "~/b": "you chose it as Folders",
        cache: "the default of Cache",
        "api.bundle.example": "API names it",
    }
    plain = plan_bundle(
        read_bundle(build_mcpb(python_bundle_manifest(), {"server/fixture_server.py": b""})),
        {"token": ("t",)},
        entry_name="plain",
        root=tmp_path,
        which=which("python"),
    )
    assert plain.config.sandbox_enabled and plain.config.sandbox is None  # sandboxed, granted nothing more


def test_a_uv_bundle_keeps_its_environment_in_its_folder_and_downloads_from_pypi(tmp_path: Path) -> None:
    doc = manifest({"type": "uv", "entry_point": "server/main.py"})
    plan = plan_bundle(read_bundle(build_mcpb(doc, SCRIPT)), {}, entry_name="uvb", root=tmp_path, which=which("uv"))
    folder = plan.config.origin["bundle"]
    assert plan.config.sandbox == SandboxSettings(allow_write=(folder,), allowed_domains=PYPI_HOSTS)
    assert plan.sandbox_why[folder] == "uv keeps the bundle's environment in its own folder"


def test_rights_take_only_what_a_sandbox_can_hold() -> None:
    rights = Rights()
    for path in ("/", "//", "notes", "${HOME}/x", "~", "~/notes", "/srv/data/"):
        rights.folder(path, "given")
    rights.hosts_in("see https://user:pw@Docs.Example.org:8443/x and http://[::1]:80/ and https://${secret:X}.a.b", "x")
    rights.hosts_in("ftp://files.example.com http://printer.local/ https://10.1.2.3/", "x")
    rights.runner("docker")
    assert rights.settings() == SandboxSettings(
        allow_write=("~", "~/notes", "/srv/data/"), allowed_domains=("docs.example.org",)
    )
    assert Rights().settings() is None

"""Install plans: the exact argv and entry from a package or remote plus the user's answers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop_app.core.registry.answer_values import secret_name
from desktop_app.core.registry.choices import choices, pick
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.fields import package_fields, remote_fields
from desktop_app.core.registry.model import ServerEntry, parse_entry
from desktop_app.core.registry.plan import (
    command_line,
    entry_name_for,
    plan_package,
    plan_remote,
)
from desktop_app.core.server_config import TransportKind
from tests.servers.registry_documents import hello, simple, weather
from tests.servers.registry_fixture import RegistryFixture, response

REGISTRY = "https://registry.example"


def which(*present: str) -> Callable[[str], str | None]:
    return lambda name: f"/usr/bin/{name}" if name in present else None


@pytest.fixture
def weather_entry() -> ServerEntry:
    return parse_entry(response(weather()))


def hello_entry() -> ServerEntry:
    fixture = RegistryFixture(url="http://127.0.0.1:5555")
    return parse_entry(response(hello(fixture)))


def test_npm_package_becomes_npx_with_the_pinned_version() -> None:
    entry = hello_entry()
    answers = {"audience": ("Ada",), "HELLO_TOKEN": ("s3cret",)}
    plan = plan_package(
        entry, entry.server.packages[0], answers, entry_name="hello", registry_url=REGISTRY, which=which("npx")
    )
    config = plan.config
    assert command_line(config) == [
        "/usr/bin/npx",  # by the path the app's PATH finds, as the consent shows it
        "-y",
        "--registry",
        "http://127.0.0.1:5555/npm",  # a non-default npm registry is passed on
        "--",  # the runner's options end: nothing after it can become one
        "@mcp-desk-tests/hello@1.0.0",
        "Ada",
    ]
    assert config.env == {"HELLO_GREETING": "hello", "HELLO_TOKEN": "${secret:HELLO_TOKEN}"}
    assert plan.secrets == {"HELLO_TOKEN": "s3cret"}
    assert config.origin == {
        "registry": REGISTRY,
        "name": "io.github.mcp-desk-tests/hello",
        "version": "1.0.0",
        "package": "npm",
    }
    assert plan.source == "npm package @mcp-desk-tests/hello 1.0.0"


def test_required_secret_missing_unless_already_stored() -> None:
    entry = hello_entry()
    package = entry.server.packages[0]
    with pytest.raises(PlanError, match=r"^HELLO_TOKEN is required$"):
        plan_package(entry, package, {}, entry_name="hello", registry_url=REGISTRY, which=which("npx"))
    plan = plan_package(
        entry,
        package,
        {},
        entry_name="hello",
        registry_url=REGISTRY,
        stored={"HELLO_TOKEN"},
        which=which("npx"),
    )
    assert plan.config.env["HELLO_TOKEN"] == "${secret:HELLO_TOKEN}" and plan.secrets == {}


def test_pypi_prefers_uvx_and_falls_back_to_pipx(weather_entry: ServerEntry) -> None:
    pypi = weather_entry.server.packages[0]
    answers = {"WEATHER_API_KEY": ("k",), "--port": ("8080",)}
    uvx = plan_package(weather_entry, pypi, answers, entry_name="weather", registry_url=REGISTRY, which=which("uvx"))
    assert command_line(uvx.config) == ["/usr/bin/uvx", "--", "weather-mcp-server==0.5.0", "--port", "8080", "serve"]
    assert uvx.config.env == {"WEATHER_API_KEY": "${secret:WEATHER_API_KEY}", "WEATHER_UNITS": "celsius"}
    pipx = plan_package(weather_entry, pypi, answers, entry_name="weather", registry_url=REGISTRY, which=which("pipx"))
    assert command_line(pipx.config) == [
        "/usr/bin/pipx",
        "run",
        "--spec",
        "weather-mcp-server==0.5.0",
        "weather-mcp-server",
        "--port",
        "8080",
        "serve",
    ]
    with pytest.raises(PlanError, match=r"neither uv nor pipx was found"):
        plan_package(weather_entry, pypi, answers, entry_name="weather", registry_url=REGISTRY, which=which())


def test_values_are_checked(weather_entry: ServerEntry) -> None:
    pypi = weather_entry.server.packages[0]

    def plan(**answers: str) -> object:
        given = {"WEATHER_API_KEY": ("k",), **{k: (v,) for k, v in answers.items()}}
        return plan_package(weather_entry, pypi, given, entry_name="w", registry_url=REGISTRY, which=which("uvx"))

    with pytest.raises(PlanError, match=r"--port must be a number"):
        plan(**{"--port": "eighty"})
    with pytest.raises(PlanError, match=r"WEATHER_UNITS must be one of: celsius, fahrenheit"):
        plan(WEATHER_UNITS="kelvin")
    with pytest.raises(PlanError, match=r"unknown setting WEATHR_UNITS \(this server takes: --port, WEATHER_API"):
        plan(WEATHR_UNITS="celsius")


def test_oci_runs_docker_without_a_shell(weather_entry: ServerEntry) -> None:
    oci = weather_entry.server.packages[1]
    answers = {"WEATHER_API_KEY": ("k",), "cache_dir": ("/home/me/weather cache",)}
    plan = plan_package(weather_entry, oci, answers, entry_name="weather", registry_url=REGISTRY, which=which("docker"))
    assert command_line(plan.config) == [
        "/usr/bin/docker",
        "run",
        "-i",
        "--rm",
        "--mount",
        "type=bind,src=/home/me/weather cache,dst=/cache",  # one argument, spaces and all
        "-e",
        "WEATHER_API_KEY",
        "-e",
        "WEATHER_UNITS",
        "--",
        "ghcr.io/acme/weather-mcp:0.5.0",
    ]
    assert plan.config.env["WEATHER_UNITS"] == "celsius"
    with pytest.raises(PlanError, match=r"docker was not found"):
        plan_package(weather_entry, oci, answers, entry_name="weather", registry_url=REGISTRY, which=which())


def test_user_text_never_becomes_a_placeholder() -> None:
    entry = hello_entry()
    answers = {"audience": ("${HOME}; rm -rf ~",), "HELLO_TOKEN": ("t",)}
    plan = plan_package(
        entry, entry.server.packages[0], answers, entry_name="hello", registry_url=REGISTRY, which=which("npx")
    )
    assert plan.config.args[-1] == "$${HOME}; rm -rf ~"  # kept literal: `$${` is the config's escape


def test_remote_with_url_variables_and_secret_header(weather_entry: ServerEntry) -> None:
    remote = weather_entry.server.remotes[0]
    assert [f.key for f in remote_fields(remote)] == ["tenant", "token", "X-Region"]
    plan = plan_remote(
        weather_entry, remote, {"tenant": ("acme",), "token": ("tok",)}, entry_name="weather", registry_url=REGISTRY
    )
    config = plan.config
    assert config.transport is TransportKind.HTTP and config.url == "https://acme.weather.example/mcp"
    assert config.headers == {"Authorization": "Bearer ${secret:WEATHER_TOKEN}", "X-Region": "eu-west-1"}
    assert plan.secrets == {"WEATHER_TOKEN": "tok"} and config.origin["package"] == "remote"
    with pytest.raises(PlanError, match=r"tenant is required"):
        plan_remote(weather_entry, remote, {"token": ("t",)}, entry_name="weather", registry_url=REGISTRY)
    sse = plan_remote(weather_entry, weather_entry.server.remotes[1], {}, entry_name="w", registry_url=REGISTRY)
    assert sse.config.transport is TransportKind.SSE and sse.config.headers == {}


def test_status_notes_and_refusals() -> None:
    deprecated = parse_entry(
        response(simple("io.x/old", "Old", remotes=[{"type": "sse", "url": "https://o/sse"}]), status="deprecated")
    )
    plan = plan_remote(deprecated, deprecated.server.remotes[0], {}, entry_name="old", registry_url=REGISTRY)
    assert plan.notes == ("The registry marks this server as deprecated.",)
    deleted = parse_entry(
        response(simple("io.x/bad", "Bad", remotes=[{"type": "sse", "url": "https://b/sse"}]), status="deleted")
    )
    with pytest.raises(PlanError, match=r"marks io.x/bad as deleted"):
        plan_remote(deleted, deleted.server.remotes[0], {}, entry_name="bad", registry_url=REGISTRY)


def test_choices_say_what_cannot_run_here(weather_entry: ServerEntry) -> None:
    options = choices(weather_entry, which=which("uvx"))
    assert [(c.kind, c.available) for c in options] == [
        ("pypi", True),
        ("oci", False),
        ("remote", True),
        ("remote", True),
    ]
    assert options[1].problem == "docker was not found: install Docker to run container images"
    assert pick(options).kind == "pypi"
    assert pick(options, "remote").remote is weather_entry.server.remotes[0]
    with pytest.raises(PlanError, match=r"cannot install it here: docker was not found"):
        pick(options, "oci")
    with pytest.raises(PlanError, match=r"offers no npm install \(it offers: oci, pypi, remote\)"):
        pick(options, "npm")
    assert [f.key for f in package_fields(weather_entry.server.packages[1])] == [
        "cache_dir",
        "WEATHER_API_KEY",
        "WEATHER_UNITS",
    ]


def test_names() -> None:
    assert entry_name_for("io.github.acme/Weather", {"weather", "weather-2"}) == "weather-3"
    assert secret_name("my server", "api-key") == "MY_SERVER_API-KEY"
    assert secret_name("weather", "WEATHER_API_KEY") == "WEATHER_API_KEY"  # the entry's name is not doubled
    assert secret_name("weather", "token") == "WEATHER_TOKEN"

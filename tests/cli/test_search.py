"""`mcp-desk search` against a real registry on 127.0.0.1: listing, the cache when it is down, errors."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.__main__ import main
from desktop_app.cli.search import search_command
from tests.servers.card_domain import CATALOG_PATH, Served, card, catalog, entry, running_domain
from tests.servers.registry_documents import populate
from tests.servers.registry_fixture import RegistryFixture, running_registry

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def registry() -> Iterator[RegistryFixture]:
    with running_registry() as fixture:
        populate(fixture)
        yield fixture


def test_lists_matches_aligned(registry: RegistryFixture, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert search_command(["weather", "--registry", registry.url]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "io.github.acme/weather      0.5.0  Forecasts and current conditions from OpenWeather",
        "io.github.acme/old-weather  0.1.0  The old forecasts (deprecated)",
    ]
    assert err == ""
    assert "search=weather" in registry.requests[-1] and "version=latest" in registry.requests[-1]


def test_malformed_entries_are_named_on_stderr(
    registry: RegistryFixture, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert search_command(["io.github", "--registry", registry.url]) == 0
    out, err = capsys.readouterr()
    assert "io.github.mcp-desk-tests/hello" in out and "broken" not in out
    assert err == "mcp-desk search: warning: left out io.github.acme/broken: server.description is missing\n"


def test_follows_cursors_up_to_the_limit(
    registry: RegistryFixture, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for index in range(40):
        registry.add(
            {
                **registry.versions["io.github.acme/weather"][0],
                "server": {
                    **registry.versions["io.github.acme/weather"][0]["server"],
                    "name": f"io.github.many/s{index:02d}",
                },
            }
        )
    assert search_command(["many", "--registry", registry.url, "--limit", "35"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 35
    assert any("cursor=30" in r for r in registry.requests)


def test_registry_down_shows_the_cached_list(
    registry: RegistryFixture, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert search_command(["weather", "--registry", registry.url]) == 0
    first = capsys.readouterr().out
    registry.down = True
    assert search_command(["weather", "--registry", registry.url]) == 0
    out, err = capsys.readouterr()
    assert out == first
    assert err.startswith("mcp-desk search: warning: the registry at http://127.0.0.1:")
    assert "answered HTTP 503" in err and "showing the list cached on" in err
    assert search_command(["other", "--registry", registry.url]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_errors_are_one_line_and_exit_2(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The first as the real `mcp-desk search`, a process of its own (this file's one): its exit code, nothing on
    stdout; the second in-process."""
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app", "search", "x", "--registry", "http://127.0.0.1:9"],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = [(done.returncode, done.stdout, done.stderr, "cannot be reached")]
    code = main(["search", "x", "--registry", "ftp://example.com"])
    out, err = capsys.readouterr()
    said.append((code, out, err, "must start with https://"))
    for code, out, err, words in said:
        assert code == 2, (code, out, err)
        assert out == ""
        assert err.startswith("mcp-desk search: ") and err.count("\n") == 1 and words in err


def test_domain_lists_its_servers_with_their_addresses(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with running_domain() as domain:
        assert search_command(["--domain", domain.host]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "io.example/weather  2.0.0  Weather — Forecasts for any city.",
        f"  Streamable HTTP: {domain.url}/mcp?region={{region}}",
    ]
    assert err == ""


def test_domain_text_is_shown_escaped_and_bad_cards_are_named(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with running_domain() as domain:
        domain.files[CATALOG_PATH] = Served(
            catalog(
                entry(domain.url + "/cards/weather"),
                {**entry(domain.url + "/nowhere", "urn:gone"), "displayName": "Gone\x1b]0;pwned\x07"},
                entry("http://example.com/card", "urn:plain"),
            )
        )
        title = "Weather\u202e\x1b[2J"
        remotes = [{"type": "sse", "url": "https://example.com/sse"}]
        domain.files["/cards/weather"] = Served(card(domain, title=title, remotes=remotes))
        assert search_command(["--domain", domain.host]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "io.example/weather  2.0.0  Weather\\u202e\\x1b[2J — Forecasts for any city.",
        "  Server-sent events: https://example.com/sse",
        f"    warning: this address is on example.com, not on {domain.host}",
    ]
    assert err.splitlines() == [
        f"mcp-desk search: warning: left out Gone\\x1b]0;pwned\\x07: {domain.url}/nowhere answered HTTP 404",
        "mcp-desk search: warning: left out Weather: its card is refused: plain http is opened only on this"
        " computer (localhost); use https",
    ]


def test_query_or_domain(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert search_command([]) == 2
    assert capsys.readouterr().err == "mcp-desk search: give either QUERY or --domain DOMAIN\n"

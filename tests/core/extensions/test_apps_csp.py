"""The CSP a view gets and the allow-list the interceptor uses: exactly what was declared, never more."""

from __future__ import annotations

import pytest

from desktop_app.core.extensions.apps_csp import MAX_ORIGINS, AppCsp, build_csp, clean_origins, origin_allowed


def directives(header: str) -> dict[str, str]:
    return {part.split(" ", 1)[0]: part.split(" ", 1)[1] for part in header.split("; ")}


def test_no_declaration_gets_the_specification_default_and_no_network() -> None:
    policy = directives(build_csp(AppCsp()))
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self' 'unsafe-inline'"
    assert policy["style-src"] == "'self' 'unsafe-inline'"
    assert policy["img-src"] == "'self' data:"
    assert policy["media-src"] == "'self' data:"
    assert policy["connect-src"] == "'none'"
    assert policy["frame-src"] == "'none'"
    assert policy["object-src"] == "'none'"
    assert policy["base-uri"] == "'self'"
    assert policy["form-action"] == "'none'"


def test_declared_origins_go_to_their_directives_only() -> None:
    csp = AppCsp(
        connect=("https://api.weather.example", "wss://live.weather.example"),
        resource=("https://cdn.example",),
        frame=("https://video.example",),
        base_uri=("https://base.example",),
    )
    policy = directives(build_csp(csp))
    assert policy["connect-src"] == "https://api.weather.example wss://live.weather.example"
    for name in ("script-src", "style-src", "img-src", "font-src", "media-src"):
        assert policy[name].endswith("https://cdn.example")
        assert "api.weather" not in policy[name]
    assert policy["frame-src"] == "https://video.example"
    assert policy["base-uri"] == "https://base.example"
    assert csp.fetchable == (
        "https://api.weather.example",
        "wss://live.weather.example",
        "https://cdn.example",
        "https://video.example",
    )


@pytest.mark.parametrize(
    "entry",
    [
        "https://evil.example; script-src *",  # directive injection
        "*",
        "https://*",
        "'unsafe-eval'",
        "ftp://files.example",
        "javascript:alert(1)",
        "https://user:pw@host.example",
        "https://a.example/?q=1",
        "https://a b.example",
        "data:",
    ],
)
def test_malformed_origins_are_refused_not_loosened(entry: str) -> None:
    good, bad = clean_origins([entry, "https://ok.example"])
    assert good == ("https://ok.example",)
    assert bad == (entry[:80],)


def test_origin_forms_that_are_accepted() -> None:
    good, bad = clean_origins(
        ["https://*.cdn.example", "http://localhost:3000", "api.example", "https://a.example:*", "https://ok.example"]
    )
    assert bad == ()
    assert good == (
        "https://*.cdn.example",
        "http://localhost:3000",
        "https://api.example",  # a bare host means https, never the view's own scheme
        "https://a.example:*",
        "https://ok.example",
    )
    assert clean_origins("https://not-a-list.example") == ((), ("'https://not-a-list.example'",))
    many, refused = clean_origins([f"https://h{i}.example" for i in range(MAX_ORIGINS + 3)])
    assert len(many) == MAX_ORIGINS and len(refused) == 3


@pytest.mark.parametrize(
    ("url", "declared", "allowed"),
    [
        ("https://api.example/v1?x=1", ["https://api.example"], True),
        ("https://api.example:8443/", ["https://api.example"], False),
        ("http://api.example/", ["https://api.example"], False),
        ("wss://api.example/socket", ["https://api.example"], True),
        ("https://api.example/", ["http://api.example"], True),
        ("https://x.cdn.example/a.js", ["https://*.cdn.example"], True),
        ("https://cdn.example/a.js", ["https://*.cdn.example"], False),
        ("https://evilcdn.example/a.js", ["https://*.cdn.example"], False),
        ("http://127.0.0.1:8080/x", ["http://127.0.0.1:8080"], True),
        ("http://127.0.0.1:8081/x", ["http://127.0.0.1:8080"], False),
        ("https://a.example:9999/", ["https://a.example:*"], True),
        ("https://api.example.evil/", ["https://api.example"], False),
        ("file:///etc/passwd", ["https://api.example"], False),
        ("https://anything.example/", [], False),
    ],
)
def test_origin_allowed(url: str, declared: list[str], allowed: bool) -> None:
    assert origin_allowed(url, declared) is allowed

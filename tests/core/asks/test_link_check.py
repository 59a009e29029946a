"""What a link really points at: hosts in their xn-- form, look-alikes, user names, and refused addresses."""

from __future__ import annotations

import pytest

from desktop_app.core.asks.link_check import MISREAD, check_link


def test_an_ordinary_link_is_shown_as_sent() -> None:
    link = check_link("https://Example.com/connect?step=1#top")
    assert (link.url, link.host, link.warnings, link.problem) == (
        "https://example.com/connect?step=1#top",
        "example.com",
        (),
        None,
    )


@pytest.mark.parametrize(
    ("url", "shown", "scripts"),
    [
        ("https://\u0430pple.com/signin", "https://xn--pple-43d.com/signin", "mixes Cyrillic and Latin letters"),
        ("https://xn--pple-43d.com/signin", "https://xn--pple-43d.com/signin", "mixes Cyrillic and Latin letters"),
        ("https://\u0440\u0430\u0443\u0440\u0430l.com/", "https://xn--l-7sba6dbr.com/", "mixes Cyrillic and Latin"),
        ("https://m\u00fcnchen.de/", "https://xn--mnchen-3ya.de/", "has non-ASCII letters (Latin)"),
        ("https://\u0441\u0441\u0441.com/", "https://xn--q1aaa.com/", "has non-ASCII letters (Cyrillic)"),
        ("https://fa\u00df.de/", "https://xn--fa-hia.de/", "has non-ASCII letters (Latin)"),  # not fass.de
    ],
)
def test_international_names_are_shown_in_their_xn_form_with_a_warning(url: str, shown: str, scripts: str) -> None:
    link = check_link(url)
    assert link.problem is None and link.url == shown and link.host == shown.split("/")[2]
    [warning] = link.warnings
    assert warning.startswith("look-alike: ") and scripts in warning and "xn-- form" in warning


def test_full_width_letters_and_dots_are_shown_as_the_browser_reads_them() -> None:
    link = check_link("https://\uff41\uff50\uff50\uff4c\uff45\u3002com/")
    assert link.host == "apple.com" and link.problem is None


def test_a_user_name_before_the_host_is_called_out() -> None:
    link = check_link("https://apple.com@evil.example/signin")
    assert link.host == "evil.example" and link.url == "https://apple.com@evil.example/signin"
    assert link.warnings == ("misleading: 'apple.com@' is a user name, not the site: the page is on evil.example",)
    assert check_link("https://user:pw@evil.example/").warnings[0].startswith("misleading: 'user:pw@'")
    long = check_link("https://" + "a" * 60 + "@evil.example/").warnings[0]
    assert "'" + "a" * 39 + "…@'" in long


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("javascript:alert(1)", "only https links are opened, not 'javascript:'"),
        ("file:///etc/passwd", "only https links are opened, not 'file:'"),
        ("data:text/html,hi", "only https links are opened, not 'data:'"),
        ("ftp://example.com/", "only https links are opened, not 'ftp:'"),
        ("http://pay.example.com/", "plain http is opened only on this computer (localhost); use https"),
        ("https:///nohost", "the URL has no host"),
        ("https://evil.example\\@apple.com/", MISREAD),
        ("https://apple.com /x", MISREAD),
        ("https://app\nle.com/", MISREAD),
        ("https://example.com/\u202egnp.exe", MISREAD),  # right-to-left override
        ("https://\u0430pple.com\u200b/", MISREAD),  # zero-width space
        ("https://%61pple.com/", "its host is percent-encoded, which hides where it goes"),
        ("https://2130706433/", "its host is a number browsers read as an IP address written in a disguised form"),
        ("https://0x7f.1/", "its host is a number browsers read as an IP address written in a disguised form"),
        ("https://xn--zz.com/", "its host has an invalid xn-- label (xn--zz)"),
        ("https://[::1/", "the URL cannot be read"),
        ("https://example.com:99999/", "the URL cannot be read"),
    ],
)
def test_links_that_could_mislead_are_refused(url: str, problem: str) -> None:
    assert check_link(url).problem == problem


def test_an_invalid_international_name_is_refused() -> None:
    problem = check_link("https://apple.com_\u0430.example/").problem
    assert problem is not None and problem.startswith("its host is not a valid domain name")
    # A full-width slash reads as part of the host to the eye but as a path to a browser.
    assert check_link("https://apple.com\uff0fsignin.evil.example/").problem == "the URL cannot be read"


@pytest.mark.parametrize(
    "url", ["http://localhost:8080/cb", "http://127.0.0.1:5000/", "http://[::1]:9/x", "http://a.localhost/"]
)
def test_plain_http_is_allowed_on_this_computer(url: str) -> None:
    link = check_link(url)
    assert link.problem is None and link.loopback and link.warnings == ()


def test_a_bare_ip_address_is_noted() -> None:
    link = check_link("https://203.0.113.9/pay")
    assert link.problem is None and link.warnings == ("the host is a bare IP address (203.0.113.9), not a name",)

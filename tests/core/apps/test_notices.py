"""Console lines of refused actions become one readable line; other console output is not a notice."""

from __future__ import annotations

import pytest

from desktop_app.core.apps.notices import console_notice


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "Refused to connect to 'https://evil.example/x' because it violates the following Content Security"
            " Policy directive: \"connect-src 'none'\".",
            "Blocked a connection to https://evil.example/x: the app did not declare it.",
        ),
        (
            "Refused to load the image 'https://img.example/a.png' because it violates ...",
            "Blocked the image https://img.example/a.png: the app did not declare it.",
        ),
        (
            "Blocked opening 'https://x.example/' in a new window because the request was made in a sandboxed frame"
            " whose 'allow-popups' permission is not set.",
            "Blocked a pop-up window (https://x.example/): apps cannot open windows.",
        ),
        (
            "Unsafe attempt to initiate navigation for frame with URL 'mcp-app-host://s/1' from frame with URL"
            " 'mcp-app://s/1'. The frame attempting navigation of the top-level window is sandboxed...",
            "Blocked an attempt to navigate away from the conversation.",
        ),
        (
            "Refused to evaluate a string as JavaScript because 'unsafe-eval' is not allowed",
            "Blocked eval(): apps may not run code built from strings.",
        ),
        ("hello from the app", None),
    ],
)
def test_console_notice(line: str, expected: str | None) -> None:
    assert console_notice(line) == expected

"""What users read when a server request fails: words, never an exception's class name."""

from __future__ import annotations

import httpx2

from desktop_app.core.server_errors import ServerUnavailableError, describe_error


def test_failures_are_described_in_words() -> None:
    gone = ServerUnavailableError("No server named 'demo' is configured")
    assert describe_error(gone) == "No server named 'demo' is configured"
    assert describe_error(ExceptionGroup("task group", [gone])) == "No server named 'demo' is configured"
    assert describe_error(RuntimeError()).startswith("an unexpected error")
    assert describe_error(ValueError("bad value")) == "bad value"
    request = httpx2.Request("GET", "http://127.0.0.1:9/mcp")
    refused = describe_error(httpx2.ConnectError("", request=request))
    assert refused == "cannot reach the server: the connection was refused or the address is unreachable"
    assert describe_error(httpx2.ReadTimeout("", request=request)) == "cannot reach the server: timed out"
    for text in (describe_error(gone), describe_error(RuntimeError()), refused):
        assert "Error" not in text and "Exception" not in text

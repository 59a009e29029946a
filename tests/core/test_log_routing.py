"""Library log records: into the server's log they concern, once, redacted; never a secret anywhere."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from desktop_app.core.log_redaction import RedactingFilter, remember_secrets
from desktop_app.core.log_routing import install_logging
from tests.hosting import eventually, fixture_config, serving_configs


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """The app's routing installed with no console (as `mcp-desk run` without --debug), removed after."""
    stream = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = install_logging(None, stream)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


@pytest.mark.anyio
async def test_sdk_records_land_in_the_server_log_once_without_tracebacks(console: io.StringIO) -> None:
    async with serving_configs(fixture_config("fx", "--garbage"), settle=20) as host:
        connection = host.connection("fx")
        await connection.call_tool("bad_notification", {})  # the SDK warns that it cannot validate it
        await eventually(lambda: any("Failed to validate" in e.text for e in connection.log), what="the warning")
        texts = [entry.text for entry in connection.log]
        # Three junk lines, three notes, each quoting its line; the SDK's own report is not repeated.
        assert len([t for t in texts if "not valid JSON-RPC" in t]) == 3
        assert any("'this is not json'" in t for t in texts)
        assert not any("Failed to parse" in t for t in texts)
        assert any(t.startswith("client: Failed to validate notification") for t in texts)  # the SDK names it so
        assert not any("most recent call last" in t for t in texts)
    assert console.getvalue() == ""


def test_known_secrets_are_redacted_in_messages_arguments_and_tracebacks() -> None:
    secret = "p@ss w/rd+2"
    remember_secrets([secret, "abc"])  # too short to redact without mangling ordinary text
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("tests.redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("GET https://x.example/?key=%s and %s", "p%40ss%20w%2Frd%2B2", "p%40ss+w%2Frd%2B2")
        try:
            raise RuntimeError(f"bad token {secret}")
        except RuntimeError:
            logger.exception("failed with %s (abc)", secret)
    finally:
        logger.removeHandler(handler)
    printed = stream.getvalue()
    assert "p@ss" not in printed and "p%40ss" not in printed
    assert printed.count("***") == 4
    assert "(abc)" in printed


def test_the_debug_console_shows_control_characters_in_records_as_text() -> None:
    """A library quoting a server's words (`--debug` prints it on the terminal) cannot steer the terminal."""
    stream = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = install_logging(logging.INFO, stream)
    try:
        hostile = "ready\x1b]52;c;Y3VybA==\x07\r\x1b[2K\u202e"
        logging.getLogger("mcp.client.stdio").warning("the server said %r and %s", "quoted", hostile)
        try:
            raise RuntimeError(f"bad frame {hostile}")
        except RuntimeError:
            logging.getLogger("mcp.client.stdio").exception("reading failed")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    printed = stream.getvalue()
    assert not any(c in printed for c in "\x1b\x07\r\u202e"), repr(printed)
    assert "and ready\\x1b]52;c;Y3VybA==\\x07\\r\\x1b[2K\\u202e\n" in printed
    assert "RuntimeError: bad frame ready\\x1b]52" in printed and "Traceback (most recent call last):\n" in printed

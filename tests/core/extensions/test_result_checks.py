"""What the SDK client's check of a result makes of a missing `resultType`, and of one tool's non-object schema."""

from __future__ import annotations

import mcp.client.session as client_session
import pytest
from mcp_types import methods
from pydantic import ValidationError

from desktop_app.core.extensions import result_checks


def test_only_a_2026_result_without_the_field_is_given_complete() -> None:
    assert result_checks.with_result_type("2026-07-28", {"content": []}) == {"content": [], "resultType": "complete"}
    task = {"resultType": "task", "taskId": "t"}
    assert result_checks.with_result_type("2026-07-28", task) is task  # a present tag is the server's
    assert result_checks.with_result_type("2025-11-25", {"content": []}) == {"content": []}


def test_the_client_check_accepts_the_untyped_result_the_sdk_alone_refuses() -> None:
    untyped = {"content": [{"type": "text", "text": "hi"}]}
    with pytest.raises(ValidationError):
        methods.validate_server_result("tools/call", "2026-07-28", untyped)
    result_checks.install()
    result_checks.install()  # idempotent
    assert result_checks.installed()
    client_session._methods.validate_server_result("tools/call", "2026-07-28", untyped)
    assert client_session._methods.SERVER_RESULTS is methods.SERVER_RESULTS  # every other name is the SDK's own


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_one_tool_with_a_string_schema_does_not_lose_the_listing(version: str) -> None:
    good = {"name": "good", "inputSchema": {"type": "object"}}
    odd = {"name": "odd", "inputSchema": {"type": "string"}, "outputSchema": {"properties": {}}}
    listing = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [good, odd]}
    with pytest.raises(ValidationError):
        methods.validate_server_result("tools/list", version, listing)
    result_checks.install()
    client_session._methods.validate_server_result("tools/list", version, listing)
    assert odd["inputSchema"] == {"type": "string"}  # the tool keeps its schema: the catalog quarantines it
    with pytest.raises(ValidationError):  # a tool without a name is still refused
        client_session._methods.validate_server_result("tools/list", version, {**listing, "tools": [{"x": 1}]})

"""The model reads a result's content, and its structured content only when there is no content."""

from __future__ import annotations

import json

from mcp_types import CallToolResult, TextContent

from desktop_app.core.chat.tool_results import convert_tool_result


def test_structured_content_is_not_said_again_beside_content() -> None:
    result = CallToolResult(content=[TextContent(text="3 items")], structured_content={"count": 3})
    converted = convert_tool_result(result)
    assert converted.text == "3 items"
    assert converted.structured == {"count": 3}  # kept for the window


def test_structured_content_stands_in_for_no_content() -> None:
    converted = convert_tool_result(CallToolResult(content=[], structured_content={"count": 3}))
    heading, body = converted.text.split("\n", 1)
    assert heading == "Structured result (JSON):"
    assert json.loads(body) == {"count": 3}

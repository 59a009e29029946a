"""Partial tool input: truncated JSON closed as the specification suggests, followed per call."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from desktop_app.core.apps.partial_input import ToolInputStream, repair


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ("[1, 2", None),
        ("{", {}),
        ('{"city', {}),
        ('{"city": "Par', {"city": "Par"}),
        ('{"city": "Paris", "days": [1, 2', {"city": "Paris", "days": [1, 2]}),
        ('{"city": "Paris", "days":', {"city": "Paris"}),
        ('{"a": {"b": "c\\', {"a": {"b": "c"}}),
        ('{"a": 1.', {"a": 1}),
        ('{"a": tr', {}),
        ('{"a": true}', {"a": True}),
        ('{"q": "a \\"quoted\\" wo', {"q": 'a "quoted" wo'}),
    ],
)
def test_repair(text: str, expected: object) -> None:
    assert repair(text) == expected


@dataclass
class Function:
    name: str | None = None
    arguments: str | None = None


@dataclass
class Delta:
    index: int
    id: str | None = None
    function: Function | None = None


def test_stream_reports_app_tools_only_and_only_changes() -> None:
    stream = ToolInputStream(lambda name: ("srv", "weather") if name == "srv_weather" else None)
    assert stream.feed([Delta(0, "call_1", Function("srv_weather", ""))]) == []  # nothing parsable yet
    first = stream.feed([Delta(0, None, Function(None, '{"city": "Pa'))])
    assert [(p.call_id, p.server, p.tool, p.arguments) for p in first] == [("call_1", "srv", "weather", {"city": "Pa"})]
    assert stream.feed([Delta(0, None, Function(None, ""))]) == []  # unchanged
    assert stream.feed([Delta(1, "call_2", Function("other", '{"x": 1'))]) == []
    later = stream.feed([Delta(0, None, Function(None, 'ris"}'))])
    assert later[0].arguments == {"city": "Paris"}

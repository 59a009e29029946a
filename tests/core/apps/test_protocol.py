"""Parsing what a view sends: every malformed shape is refused with the right JSON-RPC error."""

from __future__ import annotations

import json

import pytest

from desktop_app.core.apps import protocol
from desktop_app.core.apps.protocol import Notification, ProtocolError, Request, Response


def parse_error(text: str) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        protocol.parse(text)
    return caught.value


def test_requests_notifications_and_responses() -> None:
    assert protocol.parse('{"jsonrpc":"2.0","id":1,"method":"ping"}') == Request(1, "ping", {})
    assert protocol.parse('{"jsonrpc":"2.0","id":"a","method":"m","params":null}') == Request("a", "m", {})
    assert protocol.parse('{"jsonrpc":"2.0","method":"n","params":{"x":1}}') == Notification("n", {"x": 1})
    assert protocol.parse('{"jsonrpc":"2.0","id":"host-1","result":{}}') == Response("host-1", {}, None)
    assert protocol.parse('{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}') == Response(
        2, None, {"code": 1, "message": "m"}
    )


@pytest.mark.parametrize(
    ("text", "code", "has_id"),
    [
        ("not json", protocol.PARSE_ERROR, False),
        ("[1, 2]", protocol.INVALID_REQUEST, False),
        ('"a string"', protocol.INVALID_REQUEST, False),
        ('{"id": 1, "method": "ping"}', protocol.INVALID_REQUEST, True),
        ('{"jsonrpc": "2.0", "id": 1, "method": 7}', protocol.INVALID_REQUEST, True),
        ('{"jsonrpc": "2.0", "id": 1, "method": "m", "params": [1]}', protocol.INVALID_PARAMS, True),
        ('{"jsonrpc": "2.0", "id": {"x": 1}, "method": "m"}', protocol.INVALID_REQUEST, False),
        ('{"jsonrpc": "2.0", "id": true, "method": "m"}', protocol.INVALID_REQUEST, False),
        ('{"jsonrpc": "2.0", "id": 3}', protocol.INVALID_REQUEST, False),  # a broken response is not answered
        ('{"jsonrpc": "2.0", "id": 3, "result": {}, "error": {}}', protocol.INVALID_REQUEST, False),
        ('{"jsonrpc": "2.0"}', protocol.INVALID_REQUEST, False),
        ("[" * 100_000, protocol.PARSE_ERROR, False),
    ],
)
def test_malformed_messages(text: str, code: int, has_id: bool) -> None:
    error = parse_error(text)
    assert error.code == code
    assert (error.id is not None) is has_id


def test_oversized_message_is_refused_before_parsing() -> None:
    error = parse_error('{"jsonrpc":"2.0","method":"x","params":{"a":"' + "y" * protocol.MAX_MESSAGE_CHARS + '"}}')
    assert error.code == protocol.INVALID_REQUEST
    assert "over the limit" in error.message


def test_initialize_params() -> None:
    params = {"appInfo": {"name": "n", "version": "1"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}
    assert protocol.initialize_params(params).app_name == "n"
    for broken in (
        {**params, "appInfo": "n"},
        {**params, "appInfo": {"name": "n"}},
        {**params, "appCapabilities": None},
        {**params, "protocolVersion": 3},
        {**params, "appCapabilities": {"availableDisplayModes": ["huge"]}},
    ):
        with pytest.raises(ProtocolError) as caught:
            protocol.initialize_params(broken)
        assert caught.value.code == protocol.INVALID_PARAMS


def test_tool_call_and_read_params() -> None:
    assert protocol.tool_call_params({"name": "t"}).arguments == {}
    assert protocol.tool_call_params({"name": "t", "arguments": {"a": 1}}).arguments == {"a": 1}
    for broken in ({"name": ""}, {"name": 1}, {"name": "t", "arguments": [1]}):
        with pytest.raises(ProtocolError):
            protocol.tool_call_params(broken)
    assert protocol.resource_read_params({"uri": "x://y"}) == "x://y"
    with pytest.raises(ProtocolError):
        protocol.resource_read_params({})


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://example.com/page", True),
        ("http://example.com", True),
        ("mailto:someone@example.com", True),
        ("javascript:alert(1)", False),
        ("file:///etc/passwd", False),
        ("https://", False),
        ("https://exa mple.com", False),
        ("data:text/html,hi", False),
    ],
)
def test_open_link_accepts_web_and_mail_links_only(url: str, ok: bool) -> None:
    if ok:
        assert protocol.open_link_params({"url": url}) == url
    else:
        with pytest.raises(ProtocolError):
            protocol.open_link_params({"url": url})


def test_message_and_context_params() -> None:
    text = [{"type": "text", "text": "hello"}]
    assert protocol.message_params({"role": "user", "content": text}) == "hello"
    assert protocol.message_params({"role": "user", "content": {"type": "text", "text": "one"}}) == "one"
    for broken in (
        {"role": "assistant", "content": text},
        {"role": "user", "content": []},
        {"role": "user", "content": [{"type": "image", "data": "x"}]},
        {"role": "user", "content": [{"type": "text", "text": "   "}]},
        {"role": "user", "content": [{"type": "text", "text": "x" * (protocol.MAX_TEXT_CHARS + 1)}]},
    ):
        with pytest.raises(ProtocolError):
            protocol.message_params(broken)
    both = protocol.model_context_params({"content": text, "structuredContent": {"k": 1}})
    assert both == 'hello\n\n{"k": 1}'
    assert protocol.model_context_params({}) == ""
    with pytest.raises(ProtocolError):
        protocol.model_context_params({"structuredContent": [1]})


def test_size_and_log_params() -> None:
    assert protocol.size_params({"width": 300.5, "height": 10}) == (300, 10)
    assert protocol.size_params({}) == (None, None)
    for broken in ({"width": -1}, {"height": "10"}, {"height": True}, {"width": float("inf")}):
        with pytest.raises(ProtocolError):
            protocol.size_params(broken)
    assert protocol.log_params({"level": "info", "logger": "view", "data": {"a": 1}}) == ("info", '[view] {"a": 1}')
    with pytest.raises(ProtocolError):
        protocol.log_params({"level": "loud", "data": "x"})


def test_outgoing_messages_are_json_rpc() -> None:
    assert json.loads(protocol.request("host-1", "ui/resource-teardown", {})) == {
        "jsonrpc": "2.0",
        "id": "host-1",
        "method": "ui/resource-teardown",
        "params": {},
    }
    assert json.loads(protocol.error(None, -32700, "bad"))["error"] == {"code": -32700, "message": "bad"}

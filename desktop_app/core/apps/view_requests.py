"""What a view may ask of the host once it has initialized, and how each request is served.

Each request's parameters are checked (`protocol` raises `ProtocolError` on a bad one) and passed
to `AppServices`, which gates tool calls and asks the user; a refusal raises `AppRefusal`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Protocol

from desktop_app.core.apps import protocol


class AppRefusal(Exception):
    """The host or the user refused a view's request; the message is shown to the view as is."""


class AppServices(Protocol):
    """What a view's requests reach: one server, gated; the conversation; the user."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...

    async def read_resource(self, uri: str) -> dict[str, Any]: ...

    async def open_link(self, url: str) -> None: ...

    async def send_message(self, text: str) -> None: ...

    async def update_model_context(self, text: str) -> None: ...

    def log(self, level: str, text: str) -> None: ...


Serve = Callable[[AppServices, Mapping[str, Any]], Awaitable[dict[str, Any]]]
"""Serves one request from its parameters: the result the view is answered with."""


async def _call_tool(services: AppServices, params: Mapping[str, Any]) -> dict[str, Any]:
    call = protocol.tool_call_params(params)
    services.log("info", f"app → host tools/call {call.name}")
    return await services.call_tool(call.name, call.arguments)


async def _read_resource(services: AppServices, params: Mapping[str, Any]) -> dict[str, Any]:
    uri = protocol.resource_read_params(params)
    services.log("info", f"app → host resources/read {uri}")
    return await services.read_resource(uri)


async def _open_link(services: AppServices, params: Mapping[str, Any]) -> dict[str, Any]:
    url = protocol.open_link_params(params)
    services.log("info", f"app → host ui/open-link {url}")
    await services.open_link(url)
    return {}


async def _message(services: AppServices, params: Mapping[str, Any]) -> dict[str, Any]:
    text = protocol.message_params(params)
    services.log("info", f"app → host ui/message ({len(text):,} characters)")
    await services.send_message(text)
    return {}


async def _update_model_context(services: AppServices, params: Mapping[str, Any]) -> dict[str, Any]:
    text = protocol.model_context_params(params)
    services.log("info", f"app → host ui/update-model-context ({len(text):,} characters)")
    await services.update_model_context(text)
    return {}


async def _request_display_mode(services: AppServices, params: Mapping[str, Any]) -> dict[str, Any]:
    mode = protocol.display_mode_params(params)
    services.log("info", f"app → host ui/request-display-mode {mode}")
    return {"mode": "inline"}  # the card decides where it is shown; the user moves it


VIEW_REQUESTS: Final[Mapping[str, Serve]] = {
    "tools/call": _call_tool,
    "resources/read": _read_resource,
    "ui/open-link": _open_link,
    "ui/message": _message,
    "ui/update-model-context": _update_model_context,
    "ui/request-display-mode": _request_display_mode,
}
"""Every request a ready view may send besides `ui/initialize` and `ping`, by method."""

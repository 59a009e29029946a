"""The one way a view's requests reach anything: its own server's app-visible tools, behind approval.

A view's `tools/call` passes the same `ApprovalPolicy` as the model's calls (the card says the app
asks); only tools of the view's own server whose `_meta.ui.visibility` includes "app" are callable.
Links open only after the user agrees. Messages and context go to the conversation through
`AppChat`, which the window implements; so does what each of the view's own tool calls returned,
which the chat keeps so a reopened chat still shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol

from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from desktop_app.core.apps.questions import OpenLinkQuestion
from desktop_app.core.apps.view_requests import AppRefusal
from desktop_app.core.asks.link_check import check_link
from desktop_app.core.asks.question import TooManyQuestions
from desktop_app.core.catalog import CatalogTool
from desktop_app.core.chat.approval import (
    ApprovalPolicy,
    ApprovalRequest,
    Requester,
    denial_message,
    validate_arguments,
)
from desktop_app.core.chat.tool_results import ERROR_MARK, convert_tool_result
from desktop_app.core.chat.turn_host import TurnHost
from desktop_app.core.extensions.apps_meta import ViewOrigin, callable_by_app
from desktop_app.core.server_errors import ServerRequestTimeout, ServerUnavailableError

MAX_READ_BYTES: Final = 16 * 1024 * 1024


class AppChat(Protocol):
    """The conversation's side: which chat a view's calls are approved in, its messages and context."""

    def chat_id(self) -> str:
        """The conversation the view's tool calls are approved for (per-chat allowances)."""
        ...

    def taint(self) -> str | None:
        """Why the conversation is tainted, if it is: rules then pause for tools that are not read-only."""
        ...

    def send_app_message(self, origin: ViewOrigin, server: str, text: str) -> str | None:
        """Add `text` as a user message from the app and answer it; None if sent, else why not."""
        ...

    def set_app_context(self, origin: ViewOrigin, server: str, text: str) -> None:
        """Replace this view's context for the model's next turn (shown to the user too)."""
        ...

    def app_tool_result(self, chat: str, origin: ViewOrigin, server: str, tool: str, text: str, is_error: bool) -> None:
        """A tool call the view made (approved in conversation `chat`) ended: kept in that chat's history."""
        ...


def wire(model: BaseModel) -> dict[str, Any]:
    """An SDK result as the JSON a view expects (the 2025-era shape: no `resultType`)."""
    data = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    data.pop("resultType", None)
    return data


class AppGateway:
    """Implements `AppServices` for one view of one server."""

    def __init__(
        self,
        host: TurnHost,
        server: str,
        origin: ViewOrigin,
        *,
        policy: ApprovalPolicy,
        chat: AppChat,
        open_url: Callable[[str], bool],
    ) -> None:
        self.host = host
        self.server = server
        self.origin = origin
        self._policy = policy
        self._chat = chat
        self._open_url = open_url

    def log(self, level: str, text: str) -> None:
        connection = self.host.connections.get(self.server)
        if connection is not None:
            connection.note_app(level, f"{self.origin.resource_uri}: {text}")

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        snapshot = self.host.catalog.servers.get(self.server)
        if snapshot is None:
            raise AppRefusal(f"'{self.server}' is not connected")
        tool = next((t for t in snapshot.tools if t.name == name), None)
        if tool is None:
            owners = sorted(
                s for s, other in self.host.catalog.servers.items() if any(t.name == name for t in other.tools)
            )
            if owners:
                raise AppRefusal(f"an app may call only its own server's tools; '{name}' belongs to '{owners[0]}'")
            if name in self.host.connection(self.server).config.disabled_tools:
                raise AppRefusal(f"'{name}' was switched off by the user")
            raise AppRefusal(f"'{self.server}' has no tool named '{name}'")
        if not callable_by_app(tool):
            raise AppRefusal(f"'{name}' is not callable by apps (its visibility does not include \"app\")")
        schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
        problem = validate_arguments(schema, arguments)
        if problem is not None:
            raise AppRefusal(f"the arguments do not match the schema of '{name}': {problem}")
        target = CatalogTool(name, self.server, tool)
        request = ApprovalRequest.for_tool(
            target,
            arguments,
            call_id=self.origin.call_id,
            trust=self.host.trust(self.server),
            taint=self._chat.taint(),
            requester=Requester.APP,
            app=self.origin.resource_uri,
        )
        chat = self._chat.chat_id()
        verdict = await self._policy.decide(chat, request)
        if not verdict.allowed:
            self.log("info", f"tools/call {name} declined" + (f": {verdict.reason}" if verdict.reason else ""))
            raise AppRefusal(denial_message(name, verdict))

        def ended(text: str, is_error: bool) -> None:
            self._chat.app_tool_result(chat, self.origin, self.server, name, text, is_error)

        try:
            result = await self.host.requests(self.server).call_tool(name, verdict.arguments, chat=chat)
        except (ServerUnavailableError, ServerRequestTimeout) as exc:
            ended(str(exc), True)
            raise AppRefusal(str(exc)) from exc
        except MCPError as exc:
            ended(f"The server refused the call: {exc.message}", True)
            raise AppRefusal(f"the server refused the call: {exc.message}") from exc
        converted = convert_tool_result(result)
        ended(converted.text.removeprefix(f"{ERROR_MARK}\n"), converted.is_error)
        return wire(result)

    async def read_resource(self, uri: str) -> dict[str, Any]:
        try:
            result = await self.host.requests(self.server).read_resource(uri)
        except (ServerUnavailableError, ServerRequestTimeout) as exc:
            raise AppRefusal(str(exc)) from exc
        except MCPError as exc:
            raise AppRefusal(f"the server could not read {uri}: {exc.message}") from exc
        size = sum(len(getattr(c, "text", "") or getattr(c, "blob", "")) for c in result.contents)
        if size > MAX_READ_BYTES:
            raise AppRefusal(f"{uri} is too large to hand to an app ({size:,} bytes)")
        return wire(result)

    async def open_link(self, url: str) -> None:
        warnings: tuple[str, ...] = ()
        if not url.lower().startswith("mailto:"):
            # Shown as the browser will read it: a look-alike host in its xn-- form, a user@ part called out.
            check = check_link(url)
            if check.problem is not None:
                raise AppRefusal(f"the link was not offered: {check.problem}")
            url, warnings = check.url, check.warnings
        question = OpenLinkQuestion(
            server=self.server, call_id=self.origin.call_id, url=url, app=self.origin.resource_uri, warnings=warnings
        )
        try:
            allowed = await self.host.questions.ask(question)
        except TooManyQuestions as exc:
            raise AppRefusal(str(exc)) from exc
        if not allowed:
            raise AppRefusal("Link opening denied by user")
        if not self._open_url(url):
            raise AppRefusal("the system browser could not open the link")

    async def send_message(self, text: str) -> None:
        problem = self._chat.send_app_message(self.origin, self.server, text)
        if problem is not None:
            raise AppRefusal(problem)

    async def update_model_context(self, text: str) -> None:
        self._chat.set_app_context(self.origin, self.server, text)

"""One tool call of the model, run: the client-side tools at once, a server's tool through the approval gate.

The model's arguments are checked first (valid JSON, an object, the tool's input schema); a
server tool then waits for the user's rules or the user, and only then reaches the server. Each
step is told to the turn as an event, and the result comes back as the text the model reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from mcp.shared.exceptions import MCPError

from desktop_app.core.catalog import CatalogTool
from desktop_app.core.chat.app_gateway import wire
from desktop_app.core.chat.approval import ApprovalPolicy, ApprovalRequest, Verdict, denial_message, validate_arguments
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.events import (
    ApprovalNeeded,
    ChatError,
    ChatEvent,
    ErrorKind,
    ToolCallStarted,
    ToolDecision,
    ToolProgress,
    ToolResult,
)
from desktop_app.core.chat.sign_in_turn import call_with_sign_in
from desktop_app.core.chat.synthetic import INVOKE_PROMPT, READ_RESOURCE, SEARCH_RESOURCES, SEARCH_TOOLS
from desktop_app.core.chat.synthetic_calls import SyntheticTools
from desktop_app.core.chat.tool_results import convert_tool_result
from desktop_app.core.chat.turn_host import TurnHost
from desktop_app.core.extensions.apps_meta import ui_resource_uri
from desktop_app.core.server_errors import ServerRequestTimeout, ServerUnavailableError
from desktop_app.core.trust import ToolHints, tool_result_taint

UNKNOWN_TOOLS_LISTED: Final = 30


class ToolCalls:
    """Runs the model's tool calls for one turn; `host` is the turn's (traced) view of the host."""

    def __init__(
        self,
        host: TurnHost,
        policy: ApprovalPolicy,
        conversation: Conversation,
        synthetic: SyntheticTools,
        emit: Callable[[ChatEvent], None],
        taint: Callable[[str | None], None],
    ) -> None:
        self.host = host
        self.policy = policy
        self.conversation = conversation
        self.synthetic = synthetic
        self._emit = emit
        self._taint = taint

    async def run(
        self, call: dict[str, Any], *, search_offered: bool, tool_search: bool = False
    ) -> tuple[str, list[dict[str, Any]]]:
        """Run one tool call; returns the tool result text and messages to add after all results."""
        call_id, name = call["id"], call["function"]["name"]
        raw = call["function"]["arguments"]
        problem: str | None = None
        try:
            arguments = json.loads(raw or "{}")
        except ValueError as exc:
            arguments = None
            problem = f"the arguments are not valid JSON ({exc})"
        if problem is None and not isinstance(arguments, dict):
            problem = "the arguments must be a JSON object"
        synthetic = (
            name in (READ_RESOURCE, INVOKE_PROMPT)
            or (name == SEARCH_RESOURCES and search_offered)
            or (name == SEARCH_TOOLS and tool_search)
        )
        target = None if synthetic else self.host.catalog.tool(name)
        shown = arguments if isinstance(arguments, dict) else {}
        if target is None:
            self._emit(ToolCallStarted(call_id, name, shown, None, None))
        else:
            tool_ = target.tool
            self._emit(
                ToolCallStarted(
                    call_id,
                    name,
                    shown,
                    target.server,
                    tool_.name,
                    title=tool_.title or (tool_.annotations.title if tool_.annotations is not None else None),
                    description=tool_.description,
                    hints=ToolHints.of(tool_),
                    trusted=self.host.trust(target.server).trusted,
                )
            )
        if problem is not None or not isinstance(arguments, dict):
            return self._result(call_id, name, f"Tool '{name}' was not called: {problem}.", is_error=True), []
        if synthetic:
            return await self._run_synthetic(call_id, name, arguments, search_offered)
        if target is None:
            return self._result(call_id, name, self._unknown_tool(name), is_error=True), []
        return await self._run_server_tool(call_id, target, arguments), []

    def _result(self, call_id: str, name: str, text: str, **fields: Any) -> str:
        self._emit(ToolResult(call_id, name, text, **fields))
        return text

    def _unknown_tool(self, name: str) -> str:
        names = [READ_RESOURCE, INVOKE_PROMPT, *sorted(t.exposed_name for t in self.host.catalog.tools())]
        shown = names[:UNKNOWN_TOOLS_LISTED]
        more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
        return f"There is no tool named '{name}'. Available tools: {json.dumps(shown)}{more}."

    async def _run_synthetic(
        self, call_id: str, name: str, arguments: dict[str, Any], search_offered: bool
    ) -> tuple[str, list[dict[str, Any]]]:
        outcome = await self.synthetic.run(self.conversation.id, name, arguments, search_offered)
        return self._result(call_id, name, outcome.text, is_error=outcome.is_error), outcome.extra

    async def _run_server_tool(self, call_id: str, target: CatalogTool, arguments: dict[str, Any]) -> str:
        """The only path to a server's `tools/call`: schema check, approval, then the call."""
        name, server, tool = target.exposed_name, target.server, target.tool.name
        trust = self.host.trust(server)
        request = ApprovalRequest.for_tool(
            target, arguments, call_id=call_id, trust=trust, taint=self.conversation.tainted
        )
        problem = validate_arguments(request.input_schema, arguments)
        if problem is not None:
            text = f"Tool '{name}' was not called: its arguments do not match its input schema ({problem})."
            return self._result(call_id, name, text, is_error=True)
        chat = self.conversation.id
        assessment = self.policy.assess(chat, request)
        if assessment.allowed_by is None:
            taint = request.taint if request.under_taint else None
            self._emit(ApprovalNeeded(call_id, server, tool, arguments, assessment.rule_paused, taint))
        verdict = await self.policy.decide(chat, request)
        self._emit(self._decision(call_id, server, tool, verdict))
        if not verdict.allowed:
            return self._result(call_id, name, denial_message(name, verdict), denied=True)
        note = ""
        if verdict.edited:
            note = f"[The user changed the arguments before allowing the call: {json.dumps(verdict.arguments)}]\n"

        async def report(progress: float, total: float | None, message: str | None) -> None:
            self._emit(ToolProgress(call_id, progress, total, message))

        try:
            requests = self.host.requests(server)
            result = await call_with_sign_in(
                self.host,
                server,
                call_id,
                lambda: requests.call_tool(tool, verdict.arguments, report, call_id=call_id, chat=chat),
            )
        except (ServerUnavailableError, ServerRequestTimeout) as exc:
            self._emit(ChatError(ErrorKind.SERVER, str(exc)))
            return self._result(call_id, name, f"{note}The tool call failed: {exc}", is_error=True)
        except MCPError as exc:
            self._taint(tool_result_taint(server, tool, request.hints, trust))  # the server's own words
            return self._result(call_id, name, f"{note}The server refused the call: {exc.message}", is_error=True)
        self._taint(tool_result_taint(server, tool, request.hints, trust))
        converted = convert_tool_result(result)
        return self._result(
            call_id,
            name,
            note + converted.text,
            is_error=converted.is_error,
            structured=converted.structured,
            binaries=converted.binaries,
            app_result=wire(result) if ui_resource_uri(target.tool) is not None else None,
        )

    @staticmethod
    def _decision(call_id: str, server: str, tool: str, verdict: Verdict) -> ToolDecision:
        return ToolDecision(
            call_id,
            server,
            tool,
            verdict.allowed,
            str(verdict.decided_by),
            None if verdict.decision is None else str(verdict.decision),
            verdict.arguments,
            edited=verdict.edited,
            reason=verdict.reason,
            rule_paused=verdict.rule_paused,
            taint=verdict.taint,
        )

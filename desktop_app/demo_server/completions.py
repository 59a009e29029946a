"""Completions the demo server offers: note topics, and `summarize_resource`'s uri and style."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import Completion, CompletionArgument, CompletionContext, PromptReference, ResourceTemplateReference

from desktop_app.demo_server import content
from desktop_app.demo_server.content import (
    DIAGRAM_URI,
    GUIDE_URI,
    NOTE_TEMPLATE,
    NOTES_LOG_URI,
    REPORT_URI,
    SETTINGS_URI,
)


def _completion(values: list[str]) -> Completion:
    # The spec caps a completion at 100 values; report the rest through total/has_more.
    return Completion(values=values[:100], total=len(values), has_more=len(values) > 100)


def _uri_candidates() -> list[str]:
    static = [GUIDE_URI, REPORT_URI, DIAGRAM_URI, SETTINGS_URI, NOTES_LOG_URI]
    return static + [NOTE_TEMPLATE.replace("{topic}", topic) for topic in content.TOPIC_NOTES]


async def complete_argument(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    """Suggestions for the note topic, and for `summarize_resource`'s uri and style."""
    if isinstance(ref, ResourceTemplateReference):
        if ref.uri == NOTE_TEMPLATE and argument.name == "topic":
            return _completion(content.complete_prefix(argument.value, list(content.TOPIC_NOTES)))
        return None
    if ref.name == "summarize_resource":
        if argument.name == "style":
            return _completion(content.complete_prefix(argument.value, list(content.SUMMARY_STYLES)))
        if argument.name == "uri":
            return _completion(content.complete_prefix(argument.value, _uri_candidates()))
    return None


def add_completions(server: MCPServer[Any]) -> None:
    # `MCPServer.completion` is unannotated in mcp 2.3, so mypy sees the call as untyped.
    register = server.completion()  # type: ignore[no-untyped-call]
    register(complete_argument)

"""A conversation as a readable Markdown transcript: the messages, each tool call with who allowed it
and what it returned, each resource read, and what each answer cost.

Written from what the conversation keeps (its messages and the events beside them) and its trace
(the ledgers); every string is scrubbed of secrets first. What a server wrote goes in fenced code
blocks whose fence is longer than any run of backticks inside, or in a line as escaped text, and
each message's text is quoted under its heading, so neither can end its block and pass for the
transcript's own words (a heading of its own stays inside the quote). The transcript is inert
(`inert`): no viewer finds HTML in it, nor a link anywhere but to the web or a mail address.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from desktop_app.core.ledger.inert import code, fenced, inline, quoted_markdown
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.ledger.trace_view import TraceView

__all__ = ["RESULT_CHARS", "MarkdownTranscript", "fenced"]

RESULT_CHARS: Final = 4000
"""A tool result or resource longer than this is cut in the transcript (the trace has it whole)."""


def _cut(text: str) -> str:
    if len(text) <= RESULT_CHARS:
        return text
    return text[:RESULT_CHARS] + f"\n… ({len(text) - RESULT_CHARS:,} more characters; the trace has them all)"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _images(content: Any) -> int:
    if not isinstance(content, list):
        return 0
    return sum(1 for part in content if isinstance(part, dict) and part.get("type") == "image_url")


class MarkdownTranscript:
    """Renders one conversation; `render()` gives the Markdown text."""

    def __init__(
        self,
        title: str,
        messages: Sequence[dict[str, Any]],
        events: Sequence[tuple[int, dict[str, Any]]],
        trace: TraceView,
        scrubber: Scrubber,
        header: str = "",
    ) -> None:
        self.title = title
        self.messages = messages
        self.trace = trace
        self.scrub = scrubber.text
        self.header = header
        self.decisions = {str(e.get("call_id")): e for _, e in events if e.get("type") == "ToolDecision"}
        self.reads: dict[int, list[dict[str, Any]]] = {}
        for position, event in events:
            if event.get("type") == "ResourceRead":
                self.reads.setdefault(position, []).append(event)
        self.calls: dict[str, str] = {}
        self._answers: dict[str, int] = {}

    def render(self) -> str:
        out = [f"# {inline(self.scrub(self.title)) or 'Conversation'}", ""]
        if self.header:
            out += [self.header, ""]
        for position, message in enumerate(self.messages):
            out += self._message(position, message)
        return "\n".join(out).rstrip() + "\n"

    def _message(self, position: int, message: dict[str, Any]) -> list[str]:
        role, content = message.get("role"), message.get("content")
        text = self.scrub(_text(content))
        lines: list[str] = []
        if role == "user":
            lines += ["## You", "", quoted_markdown(text) if text else "*(no text)*", ""]
            if images := _images(content):
                lines += [f"*({images} image(s) sent to the model)*", ""]
        elif role == "assistant":
            if text:
                lines += ["## Assistant", "", quoted_markdown(text), ""]
                lines += self._cost(text)
            for call in message.get("tool_calls") or []:
                lines += self._call(call)
        elif role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            lines += [f"Result of {self.calls.get(call_id, 'the call')}:", "", fenced(_cut(text)), ""]
        # Attachments are kept after their message; a read_resource's read at its result.
        shown = {"user": position + 1, "tool": position}.get(str(role))
        for read in self.reads.get(shown, []) if shown is not None else []:
            size = sum(int(c.get("size") or 0) for c in read.get("contents") or [])
            cut = ", cut at the read cap" if read.get("truncated") else ""
            uri, server = inline(self.scrub(str(read.get("uri")))), inline(self.scrub(str(read.get("server"))))
            lines += [f"*Resource {uri} from {server} ({size:,} bytes{cut})*", ""]
        return lines

    def _call(self, call: dict[str, Any]) -> list[str]:
        function = call.get("function") or {}
        name = code(self.scrub(str(function.get("name", "tool"))))
        call_id = str(call.get("id", ""))
        self.calls[call_id] = name
        try:
            arguments = json.dumps(json.loads(function.get("arguments") or "{}"), indent=2, ensure_ascii=False)
        except ValueError:
            arguments = str(function.get("arguments", ""))
        lines = [f"### Tool call {name}", ""]
        decided = self.decisions.get(call_id)
        if decided is not None:
            verdict = "allowed" if decided.get("allowed") else "denied"
            reason = f": {inline(self.scrub(str(decided['reason'])))}" if decided.get("reason") else ""
            edited = ", with arguments the user edited" if decided.get("edited") else ""
            by = inline(str(decided.get("decided_by", "unknown")))
            lines += [f"*{verdict.capitalize()} ({by}){edited}{reason}*", ""]
        return [*lines, fenced(self.scrub(arguments), "json"), ""]

    def _cost(self, text: str) -> list[str]:
        """What the request that produced this answer carried, from its ledger, when the trace has it."""
        ordinal = self._answers.get(text, 0)
        self._answers[text] = ordinal + 1
        request = self.trace.request_for_answer(text, ordinal)
        if request is None or request.ledger is None or request.answer != text:
            return []
        ledger = request.ledger
        reported = ledger.reported_prompt_tokens
        said = f"the provider reported {reported:,}" if reported is not None else "the provider reported no usage"
        return [f"*The model got {ledger.counted:,} tokens by MCP Desk's count; {said}.*", ""]

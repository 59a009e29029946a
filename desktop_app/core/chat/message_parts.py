"""The conversation's messages taken apart for the ledger: the user's words, each attached or read
resource, each tool result, the model's answers and calls, messages a prompt added, images; and
what was not sent whole (the read cap, binaries sent as descriptors).

What each message is comes from the chat's own records, not from its text: the assistant's
tool calls say which tool a result answers, the events kept beside the conversation say which
resources were read or attached and which results carried bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.synthetic import INVOKE_PROMPT, READ_RESOURCE
from desktop_app.core.content import human_size
from desktop_app.core.ledger.accounting import Accounting, images_of, text_of
from desktop_app.core.ledger.parts import Cut, Part, PartKind, Section, preview

IMAGE_LEAD: Final = "Image of resource "
_PROMPT_ADDED: Final = re.compile(r"added (\d+) message\(s\) to the conversation, right after this result")


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    try:
        parsed = json.loads((call.get("function") or {}).get("arguments") or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


class MessageParts:
    """Builds the Messages section of one request's ledger."""

    def __init__(
        self,
        messages: Sequence[dict[str, Any]],
        events: Sequence[tuple[int, dict[str, Any]]],
        catalog: Catalog,
        accounting: Accounting,
        read_cap: int,
    ) -> None:
        self.messages = messages
        self.catalog = catalog
        self.acc = accounting
        self.read_cap = read_cap
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}
        self.reads: dict[int, list[dict[str, Any]]] = {}
        self.results: dict[str, dict[str, Any]] = {}
        for position, event in events:
            if event.get("type") == "ResourceRead":
                self.reads.setdefault(position, []).append(event)
            elif event.get("type") == "ToolResult":
                self.results[str(event.get("call_id"))] = event
        self.extras: dict[int, tuple[PartKind, str]] = {}
        self.parts: list[Part] = []
        self.cuts: list[Cut] = []

    def build(self) -> tuple[list[Part], list[Cut]]:
        self._find_extras()
        framing = self.acc.reply_priming()
        for position, message in enumerate(self.messages):
            framing += self.acc.framing(message)
            role = message.get("role")
            if position in self.extras:
                self._extra(position, message)
            elif role == "tool":
                self._tool(position, message)
            elif role == "assistant":
                self._assistant(position, message)
            else:
                self._user(position, message)
        self.parts.append(Part(Section.MESSAGES, PartKind.FRAMING, "Roles and message framing", framing))
        return self.parts, self.cuts

    # -- which messages the app added after results (images, a prompt's messages) ----------

    def _find_extras(self) -> None:
        position = 0
        while position < len(self.messages):
            message = self.messages[position]
            calls = message.get("tool_calls") or [] if message.get("role") == "assistant" else []
            position += 1
            for call in calls:
                self.calls[str(call.get("id"))] = ((call.get("function") or {}).get("name", ""), _arguments(call))
            while calls and position < len(self.messages) and self.messages[position].get("role") == "tool":
                position += 1
            for call in calls:
                name, arguments = self.calls[str(call.get("id"))]
                uri = str(arguments.get("uri", ""))
                if name == READ_RESOURCE and position < len(self.messages) and self._is_image_of(position, uri):
                    self.extras[position] = (PartKind.IMAGE, f"Image of {uri}")
                    position += 1
                elif name == INVOKE_PROMPT:
                    for _ in range(self._prompt_messages(str(call.get("id")))):
                        if position < len(self.messages):
                            self.extras[position] = (PartKind.PROMPT, f"Prompt {arguments.get('name', '')} message")
                            position += 1

    def _is_image_of(self, position: int, uri: str) -> bool:
        """Whether the message at `position` is the app's message carrying the images of resource `uri`."""
        content = self.messages[position].get("content")
        return (
            self.messages[position].get("role") == "user"
            and isinstance(content, list)
            and bool(content)
            and isinstance(content[0], dict)
            and str(content[0].get("text", "")).startswith(f"{IMAGE_LEAD}{uri} (")
        )

    def _prompt_messages(self, call_id: str) -> int:
        answer = next((m for m in self.messages if m.get("role") == "tool" and m.get("tool_call_id") == call_id), None)
        found = _PROMPT_ADDED.findall(text_of((answer or {}).get("content")))
        return int(found[-1]) if found else 0

    # -- each kind of message ---------------------------------------------------------------

    def _add(
        self, kind: PartKind, label: str, text: str, position: int, server: str | None = None, extra: int = 0
    ) -> None:
        tokens = self.acc.count(text) + extra
        self.parts.append(Part(Section.MESSAGES, kind, label, tokens, preview(text), server, position))

    def _extra(self, position: int, message: dict[str, Any]) -> None:
        kind, label = self.extras[position]
        content = message.get("content")
        images = sum(self.acc.image(url) for url in images_of(content))
        if message.get("role") == "assistant":
            label += " (as the model)"
        self._add(kind, label, text_of(content), position, extra=images + self.acc.tool_calls(message))

    def _tool(self, position: int, message: dict[str, Any]) -> None:
        call_id = str(message.get("tool_call_id", ""))
        name, arguments = self.calls.get(call_id, ("", {}))
        text = text_of(message.get("content"))
        if name == READ_RESOURCE:
            uri = str(arguments.get("uri", ""))
            self._add(PartKind.RESOURCE, f"Resource {uri} (read)", text, position, self.catalog.owner_of(uri))
            imaged = (PartKind.IMAGE, f"Image of {uri}") in self.extras.values()
            for read in self.reads.get(position, []):
                self._read_cuts(read, imaged)
            return
        target = self.catalog.tool(name) if name else None
        if target is not None:
            label, server = f"Result of {target.server} · {target.tool.name}", target.server
        else:
            label, server = (f"Result of {name}" if name else "A tool result"), None
        self._add(PartKind.TOOL_RESULT, label, text, position, server)
        binaries = (self.results.get(call_id) or {}).get("binaries") or []
        if binaries:
            kinds = ", ".join(sorted({str(b.get("mime_type") or "binary") for b in binaries}))
            self.cuts.append(
                Cut("binary", f"{label}: {len(binaries)} binary part(s) ({kinds}) sent as descriptors, not bytes.")
            )

    def _assistant(self, position: int, message: dict[str, Any]) -> None:
        calls = [(c.get("function") or {}).get("name", "") for c in message.get("tool_calls") or []]
        text = text_of(message.get("content"))
        if calls:
            label = ("The model's answer and its call to " if text else "The model's call to ") + ", ".join(calls)
        else:
            label = "The model's answer"
        self._add(PartKind.MESSAGE, label, text, position, extra=self.acc.tool_calls(message))

    def _user(self, position: int, message: dict[str, Any]) -> None:
        content = message.get("content")
        text = text_of(content)
        images = images_of(content)
        attached = [read for read in self.reads.get(position + 1, [])] if position + 1 not in self.extras else []
        starts: list[tuple[int, dict[str, Any]]] = []
        cursor = 0
        for read in attached:
            found = text.find(f"Attached resource {read.get('uri')} (", cursor)
            if found >= 0:
                starts.append((found, read))
                cursor = found + 1
        words = text[: starts[0][0]].rstrip("\n") if starts else text
        self._add(PartKind.MESSAGE, "Your message", words, position)
        for index, (start, read) in enumerate(starts):
            end = starts[index + 1][0] if index + 1 < len(starts) else len(text)
            piece = text[start:end].rstrip("\n")
            self._add(PartKind.RESOURCE, f"Resource {read.get('uri')} (attached)", piece, position, read.get("server"))
            self._read_cuts(read)
        for number, url in enumerate(images, start=1):
            self.parts.append(
                Part(
                    Section.MESSAGES,
                    PartKind.IMAGE,
                    f"Image {number} of your message",
                    self.acc.image(url),
                    "",
                    None,
                    position,
                )
            )

    def _read_cuts(self, read: dict[str, Any], imaged: bool = False) -> None:
        uri = read.get("uri")
        contents = read.get("contents") or []
        if read.get("truncated"):
            size = sum(int(c.get("size") or 0) for c in contents)
            cap, whole = human_size(self.read_cap), human_size(size)
            if cap == whole:  # close enough to read the same rounded: say it in bytes
                cap, whole = f"{self.read_cap:,} bytes", f"{size:,} bytes"
            self.cuts.append(Cut("read_cap", f"{uri}: cut at the read cap of {cap}; the whole resource is {whole}."))
        for content in contents:
            if content.get("binary") and not content.get("error"):
                mime = content.get("mime_type") or "binary"
                shown = human_size(int(content.get("size") or 0))
                how = "described in text; the picture follows as an image" if imaged else "sent as a descriptor"
                self.cuts.append(Cut("binary", f"{content.get('uri') or uri} ({mime}, {shown}): {how}, not its bytes."))

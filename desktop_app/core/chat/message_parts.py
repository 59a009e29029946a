"""The conversation's messages taken apart for the ledger: the user's words, each attached or read
resource, each tool result, the model's answers and calls, messages a prompt added, images; and
what was not sent whole (the read cap, binaries sent as descriptors).

What each message is comes from the chat's own records, not from its text: the assistant's
tool calls say which tool a result answers, the events kept beside the conversation say which
resources were read or attached and which results carried bytes.
"""

from __future__ import annotations

import itertools
import json
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
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


def _prompt_messages(answer: dict[str, Any]) -> int:
    """How many messages a prompt added after its result, as the result says."""
    found = _PROMPT_ADDED.findall(text_of(answer.get("content")))
    return int(found[-1]) if found else 0


def _same(held: tuple[Any, ...], now: tuple[Any, ...]) -> bool:
    """The same objects in the same order (messages and events are never changed in place)."""
    return len(held) == len(now) and all(map(operator.is_, held, now))


@dataclass(frozen=True)
class _Turn:
    """The parts of one closed turn of the chat, as a later request's ledger can take them again."""

    messages: tuple[dict[str, Any], ...]
    """Its messages and the first of the next turn (which closes it)."""
    events: tuple[dict[str, Any], ...]
    """The events kept at its positions, in order."""
    parts: tuple[Part, ...]
    cuts: tuple[Cut, ...]
    framing: int


class PartsMemo:
    """The closed turns of a conversation's last ledger, so the next request counts only what it adds.

    A turn runs from a message the user typed to the next one; once that next one exists, nothing after
    it changes the turn's parts. A build reads what is held and replaces it whole (safe across threads).
    """

    def __init__(self) -> None:
        self._held: tuple[_Counting | None, dict[int, _Turn]] = (None, {})

    def turns(self, counting: _Counting) -> dict[int, _Turn]:
        """The turns held, by their first position, when they were counted the same way."""
        held, turns = self._held
        return turns if held is not None and held.same(counting) else {}

    def keep(self, counting: _Counting, turns: dict[int, _Turn]) -> None:
        self._held = (counting, turns)


@dataclass(frozen=True, eq=False)
class _Counting:
    """How a ledger counted: the tokenizer and the catalog (the very ones), the dialect and the read cap."""

    count: Any
    catalog: Catalog
    dialect: str
    read_cap: int

    def same(self, other: _Counting) -> bool:
        return (
            self.count is other.count
            and self.catalog is other.catalog
            and (self.dialect, self.read_cap) == (other.dialect, other.read_cap)
        )


class MessageParts:
    """Builds the Messages section of one request's ledger, turn by turn (closed turns from `memo`)."""

    def __init__(
        self,
        messages: Sequence[dict[str, Any]],
        events: Sequence[tuple[int, dict[str, Any]]],
        catalog: Catalog,
        accounting: Accounting,
        read_cap: int,
        memo: PartsMemo | None = None,
    ) -> None:
        self.messages = messages
        self.catalog = catalog
        self.acc = accounting
        self.read_cap = read_cap
        self.memo = memo
        self.events: dict[int, list[dict[str, Any]]] = {}
        for position, event in events:
            self.events.setdefault(position, []).append(event)
        self.extras: dict[int, tuple[PartKind, str, str | None]] = {}
        """Messages the app added after results (a resource's images, a prompt's messages), with their server."""
        self.call_of: dict[int, tuple[str, dict[str, Any]]] = {}
        """Each tool result's call: its tool's name and arguments."""
        self.imaged: set[int] = set()
        """Results of `read_resource` whose pictures follow as an image message."""
        self.starts: list[int] = []
        """Where the user's turns begin: the messages they typed."""
        self.parts: list[Part] = []
        self.cuts: list[Cut] = []
        self.results: dict[str, dict[str, Any]] = {}

    def build(self) -> tuple[list[Part], list[Cut]]:
        counting = _Counting(self.acc.count, self.catalog, self.acc.dialect, self.read_cap)
        held = self.memo.turns(counting) if self.memo is not None else {}
        closed: dict[int, _Turn] = {}
        position = 0  # the turns held first, as long as they still hold; then the rest is counted
        while (turn := held.get(position)) is not None and self._still(turn, position):
            closed[position] = turn
            position += len(turn.messages) - 1
        self._scan(position)
        turns = list(closed.values())
        for start, end in itertools.pairwise(sorted({position, *self.starts, len(self.messages)})):
            turn = self._turn(start, end, tuple(self.messages[start : end + 1]), self._events_in(start, end))
            turns.append(turn)
            if end < len(self.messages):  # closed by the next typed message: the last turn may still grow
                closed[start] = turn
        if self.memo is not None:
            self.memo.keep(counting, closed)
        parts = [part for turn in turns for part in turn.parts]
        cuts = [cut for turn in turns for cut in turn.cuts]
        framing = self.acc.reply_priming() + sum(turn.framing for turn in turns)
        parts.append(Part(Section.MESSAGES, PartKind.FRAMING, "Roles and message framing", framing))
        return parts, cuts

    def _still(self, turn: _Turn, start: int) -> bool:
        """Whether a turn held from an earlier request is still the chat's, closed, from `start`."""
        end = start + len(turn.messages) - 1
        return (
            end < len(self.messages)
            and _same(turn.messages, tuple(self.messages[start : end + 1]))
            and _same(turn.events, self._events_in(start, end))
        )

    def _events_in(self, start: int, end: int) -> tuple[dict[str, Any], ...]:
        return tuple(event for position in range(start, end + 1) for event in self.events.get(position, ()))

    def _turn(
        self, start: int, end: int, window: tuple[dict[str, Any], ...], events: tuple[dict[str, Any], ...]
    ) -> _Turn:
        """Count the messages from `start` to `end` (not included)."""
        self.parts, self.cuts = [], []
        self.results = {str(e.get("call_id")): e for e in events if e.get("type") == "ToolResult"}
        framing = 0
        for position in range(start, end):
            message = self.messages[position]
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
        return _Turn(window, events, tuple(self.parts), tuple(self.cuts), framing)

    def _reads(self, position: int) -> list[dict[str, Any]]:
        return [event for event in self.events.get(position, ()) if event.get("type") == "ResourceRead"]

    # -- the turns, and which messages the app added after results (images, a prompt's messages) ----------

    def _scan(self, position: int) -> None:
        """From `position` (a turn's first message) on: where turns begin, what each result answers, which
        messages the app added. A result answers a call of its own turn."""
        calls_seen: dict[str, tuple[str, dict[str, Any]]] = {}
        messages = self.messages
        while position < len(messages):
            message = messages[position]
            role = message.get("role")
            calls = message.get("tool_calls") or [] if role == "assistant" else []
            if role == "user":
                self.starts.append(position)
                calls_seen = {}
            elif role == "tool":  # a result away from its call
                self.call_of[position] = calls_seen.get(str(message.get("tool_call_id")), ("", {}))
            position += 1
            mine = {
                str(call.get("id")): ((call.get("function") or {}).get("name", ""), _arguments(call)) for call in calls
            }
            calls_seen.update(mine)
            run = position
            while calls and position < len(messages) and messages[position].get("role") == "tool":
                self.call_of[position] = calls_seen.get(str(messages[position].get("tool_call_id")), ("", {}))
                position += 1
            answers = {str(messages[at].get("tool_call_id")): at for at in range(run, position)}
            for call_id, (name, arguments) in mine.items():
                uri = str(arguments.get("uri", ""))
                if name == READ_RESOURCE and position < len(messages) and self._is_image_of(position, uri):
                    self.extras[position] = (PartKind.IMAGE, f"Image of {uri}", None)
                    if call_id in answers:
                        self.imaged.add(answers[call_id])
                    position += 1
                elif name == INVOKE_PROMPT:
                    answer = messages[answers[call_id]] if call_id in answers else {}
                    label, server = f"Prompt {arguments.get('name', '')} message", self._prompt_server(arguments)
                    for _ in range(_prompt_messages(answer)):
                        if position < len(messages):
                            self.extras[position] = (PartKind.PROMPT, label, server)
                            position += 1

    def _prompt_server(self, arguments: dict[str, Any]) -> str | None:
        """The server whose prompt `invoke_prompt` got, found as the call found it (one server offering it)."""
        name, server = arguments.get("name"), arguments.get("server")
        owners = {
            owner
            for owner, prompt in self.catalog.prompts()
            if prompt.name == name and (not isinstance(server, str) or owner == server)
        }
        return owners.pop() if len(owners) == 1 else None

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

    # -- each kind of message ---------------------------------------------------------------

    def _add(
        self, kind: PartKind, label: str, text: str, position: int, server: str | None = None, extra: int = 0
    ) -> None:
        tokens = self.acc.count(text) + extra
        self.parts.append(Part(Section.MESSAGES, kind, label, tokens, preview(text), server, position))

    def _extra(self, position: int, message: dict[str, Any]) -> None:
        kind, label, server = self.extras[position]
        content = message.get("content")
        images = sum(self.acc.image(url) for url in images_of(content))
        if message.get("role") == "assistant":
            label += " (as the model)"
        self._add(kind, label, text_of(content), position, server, extra=images + self.acc.tool_calls(message))

    def _tool(self, position: int, message: dict[str, Any]) -> None:
        call_id = str(message.get("tool_call_id", ""))
        name, arguments = self.call_of.get(position, ("", {}))
        text = text_of(message.get("content"))
        if name == READ_RESOURCE:
            uri = str(arguments.get("uri", ""))
            self._add(PartKind.RESOURCE, f"Resource {uri} (read)", text, position, self.catalog.owner_of(uri))
            for read in self._reads(position):
                self._read_cuts(read, position in self.imaged)
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
        attached = self._reads(position + 1) if position + 1 not in self.extras else []
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

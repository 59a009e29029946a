"""What `mcp-desk run` and `replay` answer when a server asks: `--elicit` and `--sampling`, or the terminal;
and whether a skill may join the conversation: `--approve`, like a tool call.

Every request refused by a flag (or that cannot be answered) prints one line on stderr, so a
script sees what the server wanted. `ask` prompts on the terminal (stderr, then a line of stdin;
a closed stdin declines). What a server wrote is printed with its control characters written out
(`core/terminal_text`): it cannot erase the question or print a fake answer to it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from typing import Any, Final, TypeVar

from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion, UrlQuestion
from desktop_app.core.asks.form_schema import FieldKind, FormField, number_from_text
from desktop_app.core.asks.question import AskingStopped, Question
from desktop_app.core.asks.sampling import (
    ReviewQuestion,
    ReviewReply,
    SamplingConsent,
    SamplingDecision,
    SamplingQuestion,
)
from desktop_app.core.content import human_size
from desktop_app.core.skills.consent import SkillDecision, SkillQuestion, SkillReply
from desktop_app.core.terminal_text import printable

R = TypeVar("R")
ELICIT_CHOICES: Final = ("decline", "cancel", "defaults", "ask")
SAMPLING_CHOICES: Final = ("deny", "allow", "ask")
FIELD_ATTEMPTS: Final = 3
PAST: Final = {"decline": "declined", "cancel": "cancelled"}
NO_SECRETS: Final = "Servers must not ask for passwords or API keys here: don't enter them."


def add_elicit_flag(parser: argparse.ArgumentParser, *, default: str | None, said: str) -> None:
    """`--elicit`, as `run` and `replay` take it; `said` words the default in the help."""
    parser.add_argument(
        "--elicit",
        choices=ELICIT_CHOICES,
        default=default,
        help=f"what to do when a server asks the user to fill in a form or open a link (default: {said};"
        " defaults: accept the form's defaults, failing when a required field has none)",
    )


def ask_line(question: str) -> str:
    """Write `question` on stderr and read one line of stdin ("" at end of input)."""
    _say(question)
    sys.stderr.flush()
    return sys.stdin.readline()


def _say(text: str) -> None:
    sys.stderr.write(printable(text))


async def prompt(question: str) -> str:
    return (await asyncio.to_thread(ask_line, question)).strip()


def _yes(answer: str) -> bool:
    return answer.lower() in ("y", "yes")


class CliAsker:
    """An `Asker` for the command line; `report` prints one line on stderr."""

    def __init__(self, elicit: str, sampling: str, report: Callable[[str], None], approve: str = "deny") -> None:
        self._elicit = elicit
        self._sampling = sampling
        self._report = report
        self._approve = approve

    async def ask(self, question: Question[R]) -> R:
        reply: Any
        if isinstance(question, FormQuestion):
            reply = await self._form(question)
        elif isinstance(question, UrlQuestion):
            reply = await self._url(question)
        elif isinstance(question, SamplingQuestion):
            reply = await self._sample(question)
        elif isinstance(question, ReviewQuestion):
            reply = await self._review(question)
        elif isinstance(question, SkillQuestion):
            reply = await self._skill(question)
        elif isinstance(question, AskingStopped):
            reply = None  # a notice, not a question: its one line was printed with the refusal
        else:
            self._report(f"{question.server} asked something this command cannot answer; refused")
            reply = question.fallback()
        return reply  # type: ignore[no-any-return]

    # -- elicitation ------------------------------------------------------------------------

    async def _form(self, question: FormQuestion) -> ElicitReply:
        where = f'a form from {question.server} ("{_short(question.message)}")'
        if self._elicit in ("decline", "cancel"):
            self._report(f"{PAST[self._elicit]} {where} (--elicit {self._elicit})")
            return ElicitReply(self._elicit)  # type: ignore[arg-type]
        if self._elicit == "defaults":
            missing = question.form.required_without_default()
            if missing:  # dismissed, as a user who cannot answer would: the server may ask again later
                self._report(
                    f"cancelled {where}: required field(s) without a default: {', '.join(missing)} (--elicit defaults)"
                )
                return ElicitReply("cancel")
            return ElicitReply("accept", question.form.defaults())
        _say(f"\n{question.server} asks: {question.message}\n{NO_SECRETS}\n")
        answer = await prompt("Fill in this form? [y = yes, n = decline, c = cancel] ")
        if not _yes(answer):
            action = "cancel" if answer.lower() in ("c", "cancel") else "decline"
            self._report(f"{PAST[action]} {where}")
            return ElicitReply(action)  # type: ignore[arg-type]
        values: dict[str, Any] = {}
        for form_field in question.form.fields:
            answered, value = await self._field(form_field)
            if not answered:
                self._report(f"cancelled {where}: no valid answer for '{form_field.name}' after {FIELD_ATTEMPTS} tries")
                return ElicitReply("cancel")
            if value is not None:
                values[form_field.name] = value
        return ElicitReply("accept", values)

    async def _field(self, form_field: FormField) -> tuple[bool, Any]:
        """(True, the value) once the user gives a valid one (or keeps the default); (False, None) if they don't."""
        hint = _hint(form_field)
        for _ in range(FIELD_ATTEMPTS):
            text = await prompt(f"  {form_field.label}{hint}: ")
            if not text:
                if form_field.default is not None or not form_field.required:
                    return True, form_field.default
                _say("    this field is required\n")
                continue
            value = _parse(form_field, text)
            problem = "is not understood" if value is None else form_field.check(value)
            if problem is None:
                return True, value
            _say(f"    {form_field.label} {problem}\n")
        return False, None

    async def _url(self, question: UrlQuestion) -> ElicitReply:
        link = question.link
        where = f"a link from {question.server} ({link.short})" + "".join(f" [{w}]" for w in link.warnings)
        if self._elicit != "ask":
            action = "cancel" if self._elicit == "cancel" else "decline"
            self._report(f"{PAST[action]} {where} (--elicit {self._elicit}: links are opened only when asked)")
            return ElicitReply(action)  # type: ignore[arg-type]
        _say(f"\n{question.server} asks you to open a web page: {question.message}\n")
        _say(f"  {link.short}\n  (domain: {link.host})\n")
        if link.short != link.url:
            _say(f"  full address: {link.url}\n")
        _say("".join(f"  warning: {warning}\n" for warning in link.warnings))
        if _yes(await prompt("Open it yourself and continue? [y/N] ")):
            if question.then_retry:  # the server refused the call until this is done: wait for the user
                await prompt("Press Enter once you have finished in the browser. ")
                question.completion.set()
            return ElicitReply("accept")
        self._report(f"declined {where}")
        return ElicitReply("decline")

    # -- sampling ---------------------------------------------------------------------------

    async def _sample(self, question: SamplingQuestion) -> SamplingConsent:
        if self._sampling == "allow":
            return SamplingConsent(SamplingDecision.ALWAYS)
        if self._sampling == "deny":
            self._report(f"denied a sampling request from {question.server} (--sampling deny)")
            return SamplingConsent(SamplingDecision.DENY)
        _say("\n".join(_sampling_lines(question)) + "\n")
        if _yes(await prompt("Allow? [y/N] ")):
            return SamplingConsent(SamplingDecision.ONCE)
        self._report(f"denied a sampling request from {question.server}")
        return SamplingConsent(SamplingDecision.DENY)

    async def _review(self, question: ReviewQuestion) -> ReviewReply:
        shown = question.text or "; ".join(f"call {name} with {args}" for name, args in question.tool_uses)
        _say(f"\nThe model answered {question.server}: {shown}\n")
        if _yes(await prompt(f"Send this answer to {question.server}? [y/N] ")):
            return ReviewReply(True)
        self._report(f"kept the model's answer from {question.server}")
        return ReviewReply(False)

    # -- skills -----------------------------------------------------------------------------

    async def _skill(self, question: SkillQuestion) -> SkillReply:
        where = f"skill {question.name} ({question.uri}) from server {question.server}"
        changed = ", changed since you allowed it" if question.changed else ""
        if self._approve == "allow":
            return SkillReply(SkillDecision.ALLOW_ONCE, by="flag")
        if self._approve == "deny":
            self._report(f"refused to load {where} (--approve deny{changed})")
            return SkillReply(SkillDecision.DENY, by="flag")
        _say("\n".join(skill_lines(question)) + "\n")
        if _yes(await prompt("Load this skill into the conversation? [y/N] ")):
            return SkillReply(SkillDecision.ALLOW_ONCE)
        self._report(f"refused to load {where}")
        return SkillReply(SkillDecision.DENY)


def skill_lines(question: SkillQuestion) -> list[str]:
    """The skill as the user must see it before its text joins the conversation."""
    lines = [f"\n{question.server} offers the skill {question.name} ({question.uri}): {question.description}"]
    if question.changed:
        lines.append("  It changed since you allowed it:")
        lines += [f"    {change}" for change in question.changes]
    if question.also_offered_by:
        others = ", ".join(question.also_offered_by)
        lines.append(f"  warning: {others} also offer(s) something at {question.uri};")
        lines.append(f"    this loads the skill of {question.server} only")
    lines += [f"  file: {f.uri} ({human_size(f.size)})" for f in question.files]
    lines += [f"  warning: it asks for {asked}; that is never granted" for asked in question.asks_for]
    lines.append("  What it asks the model to do:")
    lines += [f"    {line}" for line in question.preview.splitlines()]
    return lines


def _sampling_lines(question: SamplingQuestion) -> list[str]:
    """Everything the model would read, and what the server asked for that it will not get."""
    limit = f"up to {question.max_tokens:,} tokens"
    if question.requested_max_tokens > question.max_tokens:
        limit += f"; the server asked for {question.requested_max_tokens:,}, your limit applies"
    lines = [f"\n{question.server} wants to use your model ({question.model}, {limit})"]
    if question.system_prompt:
        lines.append(f"  system: {question.system_prompt}")
    lines += [f"  {m.role}: {m.text}" for m in question.messages]
    for tool in question.tools:
        lines.append(f"  tool offered: {tool.name}: {tool.description or '(no description)'} (input: {tool.schema})")
    if question.wanted_context:
        lines.append(
            f"  warning: it asked for your conversation too (includeContext: {question.wanted_context});"
            " that is never sent"
        )
    if question.hidden:
        lines.append(f"  warning: {question.hidden:,} invisible character(s) hid in its text; they were removed")
    return lines


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _hint(form_field: FormField) -> str:
    parts = []
    if form_field.description:
        parts.append(form_field.description)
    if form_field.options:
        parts.append(", ".join(f"{o.value} = {o.title}" if o.title != o.value else o.value for o in form_field.options))
    if form_field.kind is FieldKind.MULTI:
        parts.append("comma-separated")
    if form_field.kind is FieldKind.BOOLEAN:
        parts.append("y/n")
    if form_field.format:
        parts.append(form_field.format)
    default = "" if form_field.default is None else f" [{json.dumps(form_field.default)}]"
    required = " (required)" if form_field.required else ""
    return (f" ({'; '.join(parts)})" if parts else "") + required + default


def _parse(form_field: FormField, text: str) -> Any:
    """The typed value of an answer, or None when it cannot be read as the field's type."""
    if form_field.kind is FieldKind.BOOLEAN:
        lowered = text.lower()
        return True if lowered in ("y", "yes", "true") else False if lowered in ("n", "no", "false") else None
    if form_field.kind in (FieldKind.INTEGER, FieldKind.NUMBER):
        number = number_from_text(form_field, text)  # read as the window reads it: "12.0" is 12
        return None if isinstance(number, str) else number
    if form_field.kind is FieldKind.MULTI:
        return [part.strip() for part in text.split(",") if part.strip()]
    return text

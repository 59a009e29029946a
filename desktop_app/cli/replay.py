"""`mcp-desk replay`: play a trace again against live servers, a regression test for a server's author.

The recorded model answers drive the same tool loop the app runs (no provider is called), so the
same tool calls reach today's servers; approvals and answers to servers' forms follow the recording
unless `--approve` says otherwise. It prints the last answer and exits 0 when every tool result is
the recorded one, else prints a diff of each result that changed and exits 1. What servers wrote is
scrubbed of secrets and printed with its control characters written out.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any, Final, TypeVar, cast

from desktop_app.cli.entry import EXIT_FAILED, EXIT_OK, UsageError, error_line, run_main
from desktop_app.cli.servers_up import APPROVE_CHOICES, NO_RESTARTS, approver, configured_servers, open_secrets, settle
from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion, UrlQuestion
from desktop_app.core.asks.question import Asker, Question
from desktop_app.core.auth.question import SignInQuestion
from desktop_app.core.chat.approval import ApprovalPolicy, ApprovalReply, ApprovalRequest, DecidedBy, Decision
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.engine import Attachment, ChatEngine
from desktop_app.core.chat.events import ChatError, ToolResult, TurnFinished, event_to_dict
from desktop_app.core.chat.trace_secrets import scrubber_for
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.replay import Difference, RecordedModel, RecordedTurn, compare_results, recorded_turns
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.ledger.trace import load_trace
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.terminal_text import printable

R = TypeVar("R")

EXIT_SAME: Final = EXIT_OK
EXIT_CHANGED: Final = EXIT_FAILED
PROG: Final = "mcp-desk replay"
_error: Final = error_line(PROG)
REPLAY_MODEL: Final = "openai/replayed"
"""For a trace that names no model: only the tokenizer cares, and nothing is sent."""

_EPILOG: Final = """\
exit codes:
  0  every tool result is the recorded one (the last answer is printed on stdout)
  1  a tool result changed (a diff of each is printed), or the replay failed unexpectedly
  2  usage error: the trace cannot be read, or the configuration is wrong
  4  no configured server could be reached, or one needs sign-in (mcp-desk login NAME)

The trace comes from mcp-desk run --trace or the window's Export chat. No model provider is called:
the model's recorded answers are given back in order, and the tool calls they make go to the servers
in --config (default: your servers). Each call is allowed or refused as it was when recorded, and a
server's form is answered as it was; --approve deny|allow|ask answers every call instead.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Play a trace again against live MCP servers and compare every tool result.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("trace", metavar="FILE", type=Path, help="a trace (JSON Lines)")
    parser.add_argument("--config", type=Path, help="servers.json to use (default: the user's)")
    parser.add_argument(
        "--approve", choices=APPROVE_CHOICES, help="answer every tool call this way instead of as recorded"
    )
    parser.add_argument("--debug", action="store_true", help="log details and show tracebacks")
    return parser


def replay_command(argv: list[str]) -> int:
    """Parse `argv` (the arguments after `replay`), replay the trace, return the exit code."""
    return run_main(_parser(), argv, _replay, _error)


class RecordedDecisions:
    """Answers each tool call as it was decided in the recording (a call it does not know is refused)."""

    def __init__(self) -> None:
        self.turn: RecordedTurn | None = None

    async def ask(self, question: Question[R]) -> R:
        if not isinstance(question, ApprovalRequest):
            return question.fallback()
        decided = (self.turn.decisions if self.turn is not None else {}).get(question.call_id or "")
        if decided is None:
            _error(f"{question.server}: the recording has no decision for {question.tool}; refused")
            return cast(R, ApprovalReply(Decision.DENY, by=DecidedBy.NOBODY))
        if not decided.get("allowed"):
            return cast(R, ApprovalReply(Decision.DENY, reason=str(decided.get("reason", ""))))
        edited = decided.get("arguments") if decided.get("edited") else None
        return cast(R, ApprovalReply(Decision.ALLOW_ONCE, arguments=edited))


class RecordedAnswers:
    """Answers what servers ask (forms, links, sign-in) as the user did in the recording, in order."""

    def __init__(self) -> None:
        self._waiting: list[dict[str, Any]] = []

    def follow(self, turn: RecordedTurn) -> None:
        self._waiting = list(turn.questions)

    async def ask(self, question: Question[R]) -> R:
        kind = type(question).__name__
        found = next((q for q in self._waiting if q.get("server") == question.server and q.get("kind") == kind), None)
        if found is None or not found.get("answered"):
            return question.fallback()
        self._waiting.remove(found)
        answer = found.get("answer")
        if isinstance(question, FormQuestion | UrlQuestion) and isinstance(answer, dict):
            return cast(R, ElicitReply(answer.get("action", "cancel"), answer.get("content")))
        if isinstance(question, SignInQuestion) and isinstance(answer, bool):
            return cast(R, answer)
        return question.fallback()


async def _replay(args: argparse.Namespace) -> int:
    try:
        turns = recorded_turns(load_trace(args.trace))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the trace: {exc}") from None
    if not turns:
        raise UsageError(f"{args.trace} records no turn to replay")
    servers = configured_servers(args.config)
    secrets = open_secrets()
    host = ServerHost(secrets=secrets, policy=NO_RESTARTS)
    answers = RecordedAnswers()
    host.questions.asker = answers
    host.asks.on_refusal = lambda server, text: _error(f"{server}: {text}")
    host.start(servers)
    try:
        if (unusable := await settle(host, servers, _error)) is not None:
            return unusable
        decisions = RecordedDecisions()
        asker: Asker = decisions if args.approve is None else approver(args.approve, _error)
        settings = ModelSettings(turns[0].model or REPLAY_MODEL)
        engine = ChatEngine(host, settings, ApprovalPolicy(asker), secrets=secrets)
        scrubber = await asyncio.to_thread(scrubber_for, host, None)
        conversation = Conversation()
        differences: list[Difference] = []
        final: TurnFinished | None = None
        for turn in turns:
            decisions.turn = turn
            answers.follow(turn)
            engine.model = RecordedModel(turn)
            engine.settings = ModelSettings(turn.model or REPLAY_MODEL)
            final, results = await _play(engine, conversation, turn, scrubber)
            differences += compare_results(turn.results, results)
        return _report(final, differences)
    finally:
        await host.stop_all()


async def _play(
    engine: ChatEngine, conversation: Conversation, turn: RecordedTurn, scrubber: Scrubber
) -> tuple[TurnFinished | None, list[dict[str, Any]]]:
    """Run one recorded turn; its end and its tool results (scrubbed as the recording was)."""
    attachments = [Attachment(uri) for uri in turn.attachments]
    results: list[dict[str, Any]] = []
    final: TurnFinished | None = None
    async for event in engine.start_turn(conversation, turn.message, attachments, turn.context):
        if isinstance(event, ToolResult):
            results.append(scrubber.value(event_to_dict(event)))
        elif isinstance(event, ChatError):
            _error(event.message)
        elif isinstance(event, TurnFinished):
            final = event
    return final, results


def _report(final: TurnFinished | None, differences: list[Difference]) -> int:
    if final is not None and final.text:
        print(printable(final.text), flush=True)
    if not differences:
        return EXIT_SAME
    print(f"\n{len(differences)} tool result(s) differ from the recording:\n", flush=True)
    for difference in differences:
        print(printable(difference.diff()), flush=True)
    return EXIT_CHANGED

"""`mcp-desk replay`: play a trace again against live servers, a regression test for a server's author.

The recorded model answers drive the same tool loop the app runs (no provider is called), so the
same tool calls reach today's servers. A trace is someone else's words: nothing in it answers for
the user. Every server tool call is asked on the terminal, or refused without one, or answered by
`--approve`, which counts as a flag (`core/chat/approval.py` weighs each answer by who gave it);
servers' forms are asked, declined, or answered by `--elicit`, and sign-in is refused, as in
`mcp-desk run`. Before anything runs it says which tools on which servers the trace calls. It prints
the last answer and exits 0 when every tool result is the recorded one, else prints a diff of each
result that changed (a refused call is one) and exits 1. What servers wrote is scrubbed of secrets and
printed with its control characters written out.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Final

from desktop_app.cli.asks import CliAsker, add_elicit_flag
from desktop_app.cli.entry import EXIT_FAILED, EXIT_OK, UsageError, error_line, run_main
from desktop_app.cli.servers_up import APPROVE_CHOICES, NO_RESTARTS, approver, configured_servers, open_secrets, settle
from desktop_app.core.chat.approval import ApprovalPolicy
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.events import ChatError, ToolResult, TurnFinished, event_to_dict
from desktop_app.core.chat.trace_secrets import scrubber_for
from desktop_app.core.chat.turn_trace import traced_attachments
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.replay import (
    Difference,
    RecordedModel,
    RecordedTurn,
    called_tools,
    compare_results,
    recorded_turns,
)
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.ledger.trace import load_trace
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.terminal_text import printable

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

The trace comes from mcp-desk run --trace or the window's Export chat, perhaps someone else's: nothing
in it answers for you. No model provider is called: the model's recorded answers are given back in
order, and the tool calls they make go to the servers in --config (default: your servers). First, one
line on stderr per tool the trace calls says which tool on which server. Every server tool call is then
asked on the terminal, or refused without one: what the trace says was allowed or edited is not used.
--approve deny|allow answers every call instead, as a command-line flag (allow does not count where your
organisation's policy asks every call); --approve ask asks even without a terminal. A server's form or
link is asked on the terminal, or declined without one; --elicit answers it instead. Sign-in and
sampling requests are refused. A refused call is a difference from the recording.
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
        "--approve",
        choices=APPROVE_CHOICES,
        help="how to answer every server tool call (default: ask on a terminal, else deny)",
    )
    add_elicit_flag(parser, default=None, said="ask on a terminal, else decline")
    parser.add_argument("--debug", action="store_true", help="log details and show tracebacks")
    return parser


def replay_command(argv: list[str]) -> int:
    """Parse `argv` (the arguments after `replay`), replay the trace, return the exit code."""
    return run_main(_parser(), argv, _replay, _error)


async def _replay(args: argparse.Namespace) -> int:
    try:
        turns = recorded_turns(load_trace(args.trace))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the trace: {exc}") from None
    if not turns:
        raise UsageError(f"{args.trace} records no turn to replay")
    terminal = sys.stdin.isatty()
    approve = args.approve or ("ask" if terminal else "deny")
    elicit = args.elicit or ("ask" if terminal else "decline")
    servers = configured_servers(args.config)
    secrets = open_secrets()
    host = ServerHost(secrets=secrets, policy=NO_RESTARTS)
    host.questions.asker = CliAsker(elicit, "deny", _error, approve)  # no model here to sample with
    host.asks.on_refusal = lambda server, text: _error(f"{server}: {text}")
    host.start(servers)
    try:
        if (unusable := await settle(host, servers, _error)) is not None:
            return unusable
        _announce(host, called_tools(turns))
        settings = ModelSettings(turns[0].model or REPLAY_MODEL)
        engine = ChatEngine(host, settings, ApprovalPolicy(approver(approve, _error)), secrets=secrets)
        scrubber = await asyncio.to_thread(scrubber_for, host, None)
        conversation = Conversation()
        differences: list[Difference] = []
        final: TurnFinished | None = None
        for turn in turns:
            engine.model = RecordedModel(turn)
            engine.settings = ModelSettings(turn.model or REPLAY_MODEL)
            final, results = await _play(engine, conversation, turn, scrubber)
            differences += compare_results(turn.results, results)
        return _report(final, differences)
    finally:
        await host.stop_all()


def _announce(host: ServerHost, called: Counter[str]) -> None:
    """Before anything runs: one line per tool the trace calls, with the server that offers it here."""
    if not called:
        _error("the trace calls no tool")
    for name, count in called.items():
        target = host.catalog.tool(name)
        what = (
            f"{name}, not a tool of these servers"
            if target is None
            else f"{target.tool.name} on server {target.server}"
        )
        _error(f"the trace calls {what} ({count} call{'' if count == 1 else 's'})")


async def _play(
    engine: ChatEngine, conversation: Conversation, turn: RecordedTurn, scrubber: Scrubber
) -> tuple[TurnFinished | None, list[dict[str, Any]]]:
    """Run one recorded turn; its end and its tool results (scrubbed as the recording was)."""
    attachments = traced_attachments(turn.attachments)
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

"""`mcp-desk run`: one chat turn without a window, for scripts and CI.

It connects the configured servers, runs one turn through the same engine as the app, prints
the final answer on stdout and exits. Errors are one line on stderr (a traceback only with
`--debug`); the exit code says what kind of failure it was. Whatever a server or the model wrote is
printed with its control characters written out (`core/terminal_text`): it cannot steer the terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Final

from desktop_app import __version__
from desktop_app.cli import entry, servers_up
from desktop_app.cli.asks import SAMPLING_CHOICES, CliAsker, add_elicit_flag
from desktop_app.cli.entry import UsageError, error_line, run_main
from desktop_app.cli.servers_up import APPROVE_CHOICES, NO_RESTARTS, approver, configured_servers, settle
from desktop_app.cli.servers_up import open_secrets as _secrets
from desktop_app.cli.task_progress import reporting_tasks
from desktop_app.core.app_settings import AppSettings, default_settings_path, load_settings
from desktop_app.core.asks.service import SamplingModel
from desktop_app.core.atomic_file import write_private
from desktop_app.core.chat.approval import (
    RULES_FILENAME,
    AlwaysAllowRules,
    ApprovalPolicy,
)
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.events import ChatError, ChatEvent, ErrorKind, TurnFinished
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.trace import TraceWriter, header, load_trace
from desktop_app.core.ledger.trace_view import transcript_document
from desktop_app.core.model.providers import key_secret_name, provider_for
from desktop_app.core.model.settings import DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_TOKENS, ChatOptions, ModelSettings
from desktop_app.core.paths import data_dir
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.root_paths import root_problem
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.terminal_text import printable

EXIT_OK: Final = entry.EXIT_OK
EXIT_UNFINISHED: Final = entry.EXIT_FAILED
EXIT_USAGE: Final = entry.EXIT_USAGE
EXIT_PROVIDER: Final = 3
EXIT_NO_SERVER: Final = servers_up.EXIT_NO_SERVER
PROG: Final = "mcp-desk run"
_error: Final = error_line(PROG)

_EPILOG: Final = """\
exit codes:
  0  the model answered (printed on stdout)
  1  the turn stopped without an answer (iteration limit) or failed unexpectedly
  2  usage or configuration error
  3  provider error (authentication, network, HTTP error, timeout)
  4  no configured server could be reached, or one needs sign-in (mcp-desk login NAME)

The API key is the one saved in the app for the model's provider; without one, the provider's usual
environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...). A server at --api-base needs neither:
local OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, Ollama) work without a key.
Server tool calls follow the app's rules: tools you always allow, and read-only tools of servers you trust
and let run without asking, run; --approve answers every other call (deny, allow, or ask on the terminal).
Once untrusted content is in the conversation (a resource or result from a server you have not marked as
trusted, or from a tool that reaches the open world), rules no longer cover tools that are not read-only:
those calls are asked again (or denied), and the transcript marks them ("rule_paused"). --approve allow
allows everything. A skill a server offers joins the conversation only when the model loads it and
--approve (or a skill you always allow, unchanged since) lets it; a trusted server's skills load unasked.
--no-sandbox NAME runs that sandboxed server without its sandbox for this run only (nothing is saved), as
"Run without the sandbox this time" does in the window; an organisation's policy that requires the sandbox
refuses it. A sandboxed server this system cannot confine does not start, and one stderr line says why.
--elicit and --sampling answer servers that ask back (a form or a link; the model); every refused
request prints one line on stderr. --root adds a folder to the roots every server is offered.
A tool call a server runs as a task is waited for as long as the task reports, with a line on stderr
whenever it changes; Ctrl+C cancels running tasks on their servers before stopping.
--trace writes the turn as JSON Lines: each request exactly as the provider received it with its ledger
(every part and its tokens), each answer and its usage, every MCP request with its timing, every question
and its answer, every approval and who decided it; secrets are left out. mcp-desk replay plays it again.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Run one chat turn against the configured MCP servers and print the answer.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("message", metavar="MESSAGE", help="the user message")
    parser.add_argument("--config", type=Path, help="servers.json to use (default: the user's)")
    parser.add_argument(
        "--model", help="litellm model string, e.g. openai/gpt-4o-mini (default: the model chosen in the app)"
    )
    parser.add_argument("--api-base", help="the provider's base URL (local or compatible servers)")
    parser.add_argument(
        "--approve",
        choices=APPROVE_CHOICES,
        default="deny",
        help="how to answer server tool calls and skills your saved rules do not cover (default: deny)",
    )
    add_elicit_flag(parser, default="decline", said="decline")
    parser.add_argument(
        "--sampling",
        choices=SAMPLING_CHOICES,
        default="deny",
        help="what to do when a server asks to use the model (default: deny)",
    )
    parser.add_argument(
        "--root", action="append", default=[], metavar="PATH", help="offer this folder to servers (repeatable)"
    )
    parser.add_argument(
        "--no-sandbox",
        action="append",
        default=[],
        metavar="SERVER",
        help="run this sandboxed server without its sandbox, this time only (repeatable)",
    )
    parser.add_argument("--attach", action="append", default=[], metavar="URI", help="attach a resource (repeatable)")
    parser.add_argument(
        "--trace", type=Path, metavar="FILE", help="write everything the turn sent and heard as JSON Lines (a trace)"
    )
    parser.add_argument(
        "--transcript", type=Path, metavar="FILE", help="write the last request's messages and the events as JSON"
    )
    parser.add_argument("--max-iterations", type=int, metavar="N", help=f"default {DEFAULT_MAX_ITERATIONS}")
    parser.add_argument("--max-tokens", type=int, metavar="N", help=f"default {DEFAULT_MAX_TOKENS}")
    parser.add_argument("--debug", action="store_true", help="log details and show tracebacks")
    return parser


def run_command(argv: list[str]) -> int:
    """Parse `argv` (the arguments after `run`), run one turn, return the exit code."""
    return run_main(_parser(), argv, _run, _error)


def _settings(args: argparse.Namespace, saved: AppSettings) -> tuple[ModelSettings, ChatOptions]:
    """The app's saved model and options, overridden by whatever the flags give."""
    if not args.message.strip():
        raise UsageError("the message is empty")
    if args.model is None and saved.model is None:
        raise UsageError("no model: pass --model, or choose one in the app's Settings")
    try:
        if args.model is None:
            assert saved.model is not None
            base = replace(saved.model, api_base=args.api_base or saved.model.api_base)
        else:
            # The key the app saved for the preset these flags describe, if it has one.
            preset = provider_for(args.model, args.api_base)
            base = ModelSettings(args.model, api_base=args.api_base, api_key_secret=key_secret_name(preset))
        settings = base if args.max_tokens is None else replace(base, max_tokens=args.max_tokens)
        iterations = saved.chat.max_iterations if args.max_iterations is None else args.max_iterations
        options = replace(saved.chat, max_iterations=iterations)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return settings, options


async def _run(args: argparse.Namespace) -> int:
    saved = load_settings(default_settings_path()).settings
    settings, options = _settings(args, saved)
    for root in args.root:
        if (problem := root_problem(root)) is not None:
            raise UsageError(f"--root {root} {problem}")
    servers = without_sandbox(configured_servers(args.config), args.no_sandbox, policy_in_force())
    secrets = _secrets()
    host = ServerHost(secrets=secrets, policy=NO_RESTARTS)
    host.questions.asker = CliAsker(args.elicit, args.sampling, _error, args.approve)
    host.asks.on_refusal = lambda server, text: _error(f"{server}: {text}")
    host.asks.model = SamplingModel(settings, saved.provider, secrets)
    host.asks.default_roots = saved.roots
    host.asks.extra_roots = tuple(args.root)
    host.start(servers)
    for connection in host.connections.values():  # read only if a start finds no sandbox here
        connection.confinement.way_out = f"to run it without the sandbox this time, pass --no-sandbox {connection.name}"
    try:
        if (unusable := await settle(host, servers, _error)) is not None:
            return unusable
        for (server, tool), why in host.catalog.quarantined().items():
            _error(f"server {server}: tool {tool} is not offered to the model: {why}")
        policy = ApprovalPolicy(approver(args.approve, _error), AlwaysAllowRules(data_dir() / RULES_FILENAME))
        engine = ChatEngine(host, settings, policy, options=options, secrets=secrets)
        conversation = Conversation()
        with contextlib.ExitStack() as scratch:
            trace = _trace_path(args, scratch)
            first = header(conversation.id, __version__)
            writer = None if trace is None else TraceWriter(trace, engine.traces.scrubber, first=first)
            attached = [ResourceRef("", uri) for uri in args.attach]  # each from the one server listing it
            turn = engine.start_turn(conversation, args.message, attached, trace=writer)
            events: list[ChatEvent] = []
            try:
                async with reporting_tasks(host, _error):  # tasks' progress on stderr; interrupted, they are cancelled
                    async for event in turn:
                        events.append(event)
                        if isinstance(event, ChatError):
                            _error(event.message)
            finally:
                await turn.traced()
                if writer is not None and writer.failed is not None:
                    _error(f"cannot write the trace: {writer.failed}")
                if args.transcript is not None and trace is not None:
                    _write_transcript(args.transcript, trace)
        return _exit_code(events)
    finally:
        await host.stop_all()


def without_sandbox(servers: list[ServerConfig], names: list[str], managed: PolicyInForce) -> list[ServerConfig]:
    """`servers`, those named by `--no-sandbox` unconfined for this run (in memory only); refused where the
    organisation's policy requires the sandbox, or when a name is no local server."""
    if not names:
        return servers
    if (required := managed.sandbox_required()) is not None:
        raise UsageError(f"--no-sandbox is refused: {required}")
    local = {server.name for server in servers if server.is_stdio}
    for name in names:
        if name not in local:
            raise UsageError(f"--no-sandbox {name}: no local server of that name is configured")
    return [replace(s, sandbox_enabled=False) if s.name in names else s for s in servers]


def _trace_path(args: argparse.Namespace, scratch: contextlib.ExitStack) -> Path | None:
    """Where the turn is traced: `--trace`, else a scratch file the `--transcript` view is made from."""
    if args.trace is not None:
        try:
            write_private(args.trace, "")  # a trace of this run only
        except OSError as exc:
            raise UsageError(f"cannot write the trace: {exc}") from None
        return Path(args.trace)
    if args.transcript is not None:
        return Path(scratch.enter_context(tempfile.TemporaryDirectory())) / "trace.jsonl"
    return None


def _exit_code(events: list[ChatEvent]) -> int:
    final = events[-1]
    assert isinstance(final, TurnFinished)
    if final.reason == "stop":
        print(printable(final.text), flush=True)
        return EXIT_OK
    errors = [e for e in events if isinstance(e, ChatError)]
    if any(e.kind is ErrorKind.PROVIDER for e in errors):
        return EXIT_PROVIDER
    if any(e.kind is ErrorKind.INPUT for e in errors):
        return EXIT_USAGE
    if final.reason == "max_iterations":
        _error(final.text)
    return EXIT_UNFINISHED


def _write_transcript(path: Path, trace: Path) -> None:
    """The trace's view as one JSON document: the model, the taint, the messages as last sent, the events."""
    try:
        document = transcript_document(load_trace(trace))
        write_private(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    except (OSError, ValueError) as exc:
        _error(f"cannot write the transcript: {exc}")


if __name__ == "__main__":
    sys.exit(run_command(sys.argv[1:]))

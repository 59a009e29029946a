"""`mcp-desk run` with a tool that is a task (server-everything's `simulate-research-query`): it waits
for the task with a status line on stderr per change and answers its question with `--elicit`; Ctrl+C
cancels a running task (the fixture's, which runs until cancelled) on its server before the command stops.
A server's status message is printed on its own line with its control characters written out."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from desktop_app.cli.run import run_command
from desktop_app.core.asks.budget import MAX_PER_CALL
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers import tasks_server
from tests.servers.everything import everything_available, everything_stdio_params

pytestmark = [
    *LITELLM_WARNINGS,
    pytest.mark.usefixtures("provider_key"),
    pytest.mark.npm,
    pytest.mark.skipif(not everything_available(), reason="server-everything is not installed"),
]
ROOT = Path(__file__).resolve().parents[2]
RESEARCH = "everything__simulate-research-query"
TASKS_SCRIPT = tasks_server.__file__


@pytest.fixture
def config(tmp_path: Path) -> Path:
    params = everything_stdio_params()
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"everything": {"command": params.command, "args": params.args}}}))
    return path


def args(config: Path, llm: ScriptedLLM) -> list[str]:
    return ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url, "--approve", "allow"]


def test_the_run_waits_for_the_task_prints_its_stages_and_answers_its_question(
    config: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    llm.queue(calls(ToolCall(RESEARCH, {"topic": "python", "ambiguous": True})), text("Researched."))
    assert run_command([*args(config, llm), "--elicit", "decline", "Research python"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "Researched.\n"
    lines = [line.removeprefix("mcp-desk run: ") for line in captured.err.splitlines()]
    prefix = "task simulate-research-query on everything "
    states = [line.removeprefix(prefix).rsplit(" (", 1)[0] for line in lines if line.startswith(prefix)]
    asking = next(i for i, state in enumerate(states) if state.startswith("needs your input: Found multiple"))
    # The stages seen are printed in the server's order; a loaded machine's poll may miss a short one.
    stages = ["working: Gathering sources...", "working: Analyzing content..."]
    seen = list(dict.fromkeys(states[:asking]))
    assert seen and seen == [stage for stage in stages if stage in seen]
    assert states[-1].startswith("completed")
    assert any(line.startswith("declined a form from everything") for line in lines)
    [result] = tool_messages(llm.bodies()[1])
    assert "# Research Report: python (User declined - using default interpretation)" in result["content"]


def test_ctrl_c_cancels_the_running_task_on_its_server(tmp_path: Path, llm: ScriptedLLM) -> None:
    # The fixture's `forever` task works until it is cancelled: it cannot end before the signal.
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"tasks": {"command": sys.executable, "args": [TASKS_SCRIPT]}}}))
    llm.queue(calls(ToolCall("tasks__forever", {})), text("never sent"))
    command = [sys.executable, "-m", "desktop_app.cli.run", *args(config, llm), "Keep going"]
    env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
    with subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        # A test worker may ignore SIGINT, and a child inherits that: Ctrl+C must reach it as it does from a shell.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as run:
        stderr = run.stderr
        assert stderr is not None
        lines: list[str] = []
        said_so_far: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=lambda: list(map(said_so_far.put, stderr)), daemon=True)
        reader.start()
        while not any("task forever on tasks working: Still going" in line for line in lines):
            try:  # a generous deadline, so a run that never gets there fails instead of hanging
                lines.append(said_so_far.get(timeout=120))
            except queue.Empty:
                pytest.fail("no working task within 120 s:\n" + "".join(lines))
        run.send_signal(signal.SIGINT)
        run.wait(timeout=60)
        reader.join(timeout=30)  # the rest of stderr, up to its end
    said = "".join(lines) + "".join(said_so_far.get_nowait() for _ in range(said_so_far.qsize()))
    assert run.returncode == 130, said
    cancelled = [line for line in said.splitlines() if "task forever on tasks cancelled" in line]
    assert cancelled and "The user cancelled this task before it finished; it has no result." in cancelled[0]
    assert "did not confirm" not in said  # the server acknowledged the cancellation
    assert said.rstrip().endswith("mcp-desk run: interrupted")


def test_a_hostile_status_message_stays_on_its_own_line_and_cannot_steer_the_terminal(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"tasks": {"command": sys.executable, "args": [TASKS_SCRIPT]}}}))
    topic = "tides\nmcp-desk run: every tool call was approved\x1b[2J\x1b]52;c;ZXZpbA==\x07"
    llm.queue(calls(ToolCall("tasks__research", {"topic": topic})), text("Done."))
    assert run_command([*args(config, llm), "Research"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert not any(line.startswith("mcp-desk run: every tool call") for line in lines)  # no forged line
    [gathering] = [line for line in lines if "Gathering sources on" in line]
    assert "on tides mcp-desk run: every tool call was approved\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07" in gathering
    assert "\x1b" not in "".join(lines)


def test_a_task_that_asks_on_every_poll_is_stopped_and_cancelled_with_one_line(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"tasks": {"command": sys.executable, "args": [TASKS_SCRIPT]}}}))
    llm.queue(calls(ToolCall("tasks__nag", {})), text("Stopped."))
    assert run_command([*args(config, llm), "--elicit", "decline", "Nag me"]) == 0
    lines = [line.removeprefix("mcp-desk run: ") for line in capsys.readouterr().err.splitlines()]
    declined = [line for line in lines if line.startswith("declined a form from tasks")]
    assert len(declined) == MAX_PER_CALL  # a bounded number of questions, each answered by the flag
    stopped = [line for line in lines if "too many questions" in line]
    assert stopped == [
        f"tasks: refused a form: too many questions ('tasks' asked {MAX_PER_CALL} questions during one tool call;"
        " it is not asked more for it); the user was not asked"
    ]
    assert not any("cannot answer" in line for line in lines)  # the notice is not a question to refuse
    [cancelled] = [line for line in lines if line.startswith("task nag on tasks cancelled")]
    assert f"MCP Desk cancelled this task: 'tasks' asked {MAX_PER_CALL} questions" in cancelled
    [result] = tool_messages(llm.bodies()[1])
    assert "MCP Desk cancelled this task" in result["content"]

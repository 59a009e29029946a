"""What `mcp-desk run` prints when things around it misbehave: only the answer on stdout, no
library tracebacks or MuPDF messages on stderr, and never a secret, even with `--debug`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest

from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.model.settings import ChatOptions, ModelSettings
from desktop_app.core.paths import APP_NAME
from desktop_app.core.secret_store import open_secret_store
from tests.hosting import FIXTURE_SCRIPT
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text
from tests.servers.everything import run_fixture_http
from tests.servers.fixture_server import BROKEN_PDF_TEXT

pytestmark = [*LITELLM_WARNINGS, pytest.mark.anyio]
ROOT = Path(__file__).resolve().parents[2]
URL_SECRET = "url-s3cret-never-printed"
ENV_SECRET = "env-s3cret-never-printed"
API_KEY = "sk-api-key-never-printed"


def _home(tmp_path: Path, *, pdf_text: bool = False) -> dict[str, str]:
    """An isolated config and data home for the subprocess, with the secrets stored and PDF text on."""
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "OPENAI_API_KEY": API_KEY,
    }
    store = open_secret_store(tmp_path / "data" / APP_NAME, prefer="plaintext-file")
    store.set("URL_TOKEN", URL_SECRET)
    store.set("ENV_TOKEN", ENV_SECRET)
    save_settings(tmp_path / "config" / APP_NAME / "settings.json", AppSettings(chat=ChatOptions(pdf_text=pdf_text)))
    return env


async def _run(env: dict[str, str], config: Path, llm: ScriptedLLM, *args: str) -> tuple[int, str, str]:
    model = ModelSettings("openai/scripted", api_base=llm.url)
    command = [sys.executable, "-m", "desktop_app.cli.run", "--config", str(config), "--model", model.model]
    done = await anyio.run_process([*command, "--api-base", llm.url, *args], cwd=ROOT, env=env, check=False)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


async def test_stdout_carries_only_the_answer_and_stderr_stays_quiet(tmp_path: Path) -> None:
    env = _home(tmp_path, pdf_text=True)
    config = tmp_path / "servers.json"
    fixture = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT), "--garbage", "--broken-pdf"]}
    config.write_text(json.dumps({"mcpServers": {"fx": fixture}}))
    with ScriptedLLM() as llm:
        llm.queue(text("The PDF says hello."))
        code, out, err = await _run(env, config, llm, "--attach", "fixture://broken.pdf", "What does it say?")
        sent = json.dumps(llm.bodies()[0]["messages"])
    assert code == 0, err
    assert out == "The PDF says hello.\n"  # MuPDF's complaints about the damaged page are not here
    assert err == ""  # nor an SDK traceback for each junk line the server printed
    assert BROKEN_PDF_TEXT in sent


async def test_debug_output_shows_no_secret_whatever_library_logs_it(tmp_path: Path) -> None:
    env = _home(tmp_path)
    async with run_fixture_http() as url:
        config = tmp_path / "servers.json"
        remote = {"url": url + "?token=${secret:URL_TOKEN}"}
        local = {
            "command": sys.executable,
            "args": [str(FIXTURE_SCRIPT), "--secret-echo"],
            "env": {"FIXTURE_TOKEN": "${secret:ENV_TOKEN}"},
        }
        config.write_text(json.dumps({"mcpServers": {"remote": remote, "local": local}}))
        with ScriptedLLM() as llm:
            llm.queue(text("Done."))
            code, out, err = await _run(env, config, llm, "--debug", "hi")
            assert llm.requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    assert code == 0, err
    assert out == "Done.\n"
    assert "?token=***" in err  # httpx2 logged the request URL: the line is there, the value is not
    for secret in (URL_SECRET, ENV_SECRET, API_KEY):
        assert secret not in err and secret not in out

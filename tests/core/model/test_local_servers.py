"""Finding model servers on this computer: real HTTP servers on free 127.0.0.1 ports play Ollama, an
OpenAI-style server and hostile ones (a redirect, a proxy from the environment, junk, a flood, a trickle)."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

import pytest

from desktop_app.core.model.local_servers import MAX_MODELS, LocalKind, find_local_servers
from desktop_app.core.model.settings import ModelSettings
from tests.local_http import free_port, json_answer, local_server


@pytest.mark.anyio
async def test_running_servers_are_found_with_their_models_and_one_click_settings() -> None:
    ollama = json_answer({"models": [{"name": "qwen3:8b"}, {"name": "Llama3.2:3b"}]})
    vllm = json_answer({"object": "list", "data": [{"id": "meta/Llama-3-8B", "owned_by": "vllm"}]})
    studio = json_answer({"object": "list", "data": [{"id": "gemma-3", "owned_by": "organization_owner"}]})
    with (
        local_server(ollama) as (ollama_port, ollama_asked),
        local_server(vllm) as (vllm_port, _),
        local_server(studio) as (studio_port, studio_asked),
        local_server(json_answer({"detail": "Not Found"}, 404)) as (other_port, _),
    ):
        kinds = [
            LocalKind("Ollama", ollama_port, "ollama"),
            LocalKind("llama.cpp server", vllm_port, "openai"),  # its list says who it really is
            LocalKind("LM Studio", studio_port, "openai"),
            LocalKind("vLLM", other_port, "openai"),  # something else on the port: not a model server
            LocalKind("vLLM", free_port(), "openai"),  # nothing running
        ]
        found = await find_local_servers(kinds)
    assert [(s.label, s.port, s.models) for s in found] == [
        ("Ollama", ollama_port, ("Llama3.2:3b", "qwen3:8b")),
        ("vLLM", vllm_port, ("meta/Llama-3-8B",)),
        ("LM Studio", studio_port, ("gemma-3",)),
    ]
    assert ollama_asked == ["/api/tags"] and studio_asked == ["/v1/models"], "one GET of the model list each"
    ollama_found, vllm_found = found[0], found[1]
    assert ollama_found.provider.id == "ollama"
    assert ollama_found.model_settings("qwen3:8b") == ModelSettings(
        "ollama/qwen3:8b", api_base=f"http://127.0.0.1:{ollama_port}"
    )
    assert vllm_found.provider.id == "compatible"
    assert vllm_found.model_settings("meta/Llama-3-8B") == ModelSettings(
        "openai/meta/Llama-3-8B", api_base=f"http://127.0.0.1:{vllm_port}/v1"
    )


@pytest.mark.anyio
async def test_hostile_answers_send_nothing_elsewhere_and_keep_only_plain_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def trickle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()
        handler.wfile.write(b'{"data": [')
        for _ in range(200):  # a byte now and then, each within the read timeout
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.05)

    elsewhere = json_answer({"data": [{"id": "from-elsewhere"}]})
    with local_server(elsewhere) as (elsewhere_port, elsewhere_asked):

        def redirect(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(302)
            handler.send_header("Location", f"http://127.0.0.1:{elsewhere_port}/v1/models")
            handler.end_headers()

        junk = json_answer(
            {"data": [{"id": "ok-model"}, {"id": "evil\x1b[2J"}, {"id": "bidi\u202egpj.exe"}, {"id": "x" * 500}, {}]}
        )
        flood = json_answer({"data": [{"id": f"m{i:03}"} for i in range(150)]})
        huge = json_answer({"data": [{"id": "big"}], "pad": "x" * (2 * 1024 * 1024)})
        # A proxy from the environment would be sent the request: it must not be used.
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{elsewhere_port}")
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{elsewhere_port}")
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        with (
            local_server(redirect) as (redirect_port, _),
            local_server(junk) as (junk_port, _),
            local_server(flood) as (flood_port, _),
            local_server(huge) as (huge_port, _),
            local_server(trickle) as (trickle_port, _),
        ):
            kinds = [LocalKind("vLLM", port, "openai") for port in (redirect_port, junk_port, flood_port, huge_port)]
            kinds.append(LocalKind("vLLM", trickle_port, "openai"))
            found = await find_local_servers(kinds, timeout=0.8, deadline=0.5)
    assert elsewhere_asked == [], "neither the redirect nor the proxy reached another server"
    assert {s.port: s.models for s in found} == {
        junk_port: ("ok-model",),
        flood_port: tuple(f"m{i:03}" for i in range(MAX_MODELS)),
    }, "control and bidi characters, long names, a body over 1 MiB and a trickle are all left out"

"""Context cost: the catalog system prompt against pasting every resource, and the loop's own overhead.

    python bench/context.py

Sets: the built-in demo server, server-everything (when its npm package is installed) and a
synthetic server with 10,000 resources. Goals: the catalog costs at most 5% of the naive dump,
and at most 2,000 tokens with 10,000 resources. Then a turn of tool-call iterations against an
instant local model measures what the engine adds per iteration on top of the model call.
Exits 1 when a goal is missed.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["LITELLM_OFFLINE_MODE"] = "true"
os.environ.setdefault("OPENAI_API_KEY", "sk-bench")

from mcp.server import Server  # noqa: E402
from mcp.server.context import ServerRequestContext  # noqa: E402
from mcp_types import (  # noqa: E402
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    TextResourceContents,
)

from desktop_app.core.chat.approval import ApprovalPolicy, Decision, StaticApprover  # noqa: E402
from desktop_app.core.chat.context import ContextBuilder, naive_dump_tokens  # noqa: E402
from desktop_app.core.chat.conversations import Conversation  # noqa: E402
from desktop_app.core.chat.engine import ChatEngine  # noqa: E402
from desktop_app.core.chat.tokens import count_tokens  # noqa: E402
from desktop_app.core.host import ServerHost  # noqa: E402
from desktop_app.core.model.llm import load_litellm, stream_completion  # noqa: E402
from desktop_app.core.model.settings import ModelSettings  # noqa: E402
from desktop_app.core.server_config import ServerConfig, TransportKind  # noqa: E402
from desktop_app.demo_server import build_server as build_demo_server  # noqa: E402
from tests.llm_server import ScriptedLLM, ToolCall, calls, text  # noqa: E402
from tests.servers.everything import everything_available, everything_stdio_params  # noqa: E402

MODEL: Final = "openai/gpt-4o-mini"
BUDGET: Final = 1500
SYNTHETIC_COUNT: Final = 10_000
ITERATIONS: Final = 20
ROUNDS: Final = 3
GOAL_RATIO: Final = 0.05
GOAL_LARGE: Final = 2000
_TOPICS: Final = ("billing", "onboarding", "incident", "release", "security", "hiring", "roadmap", "support")


def synthetic_document(index: int) -> str:
    topic = _TOPICS[index % len(_TOPICS)]
    body = " ".join(f"Paragraph {p} of document {index} discusses {topic} decisions and follow-ups." for p in range(24))
    return f"# {topic.title()} note {index}\n\n{body}\n"


def build_synthetic_server(count: int) -> Server[Any]:
    """A server listing `count` text documents of about 1.7 KB each, all on one page."""
    resources = [
        Resource(
            uri=f"archive://{_TOPICS[i % len(_TOPICS)]}/{i:05d}.md",
            name=f"{_TOPICS[i % len(_TOPICS)]}-{i:05d}.md",
            description=f"{_TOPICS[i % len(_TOPICS)].title()} note {i}",
            mime_type="text/markdown",
            size=len(synthetic_document(i).encode()),
        )
        for i in range(count)
    ]
    by_uri = {r.uri: i for i, r in enumerate(resources)}

    async def list_resources(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        return ListResourcesResult(resources=resources)

    async def list_templates(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=[])

    async def read_resource(ctx: ServerRequestContext[Any], params: ReadResourceRequestParams) -> ReadResourceResult:
        text_ = synthetic_document(by_uri[params.uri])
        return ReadResourceResult(
            contents=[TextResourceContents(uri=params.uri, text=text_, mime_type="text/markdown")]
        )

    return Server(
        "synthetic",
        version="1.0.0",
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def _config(name: str, **fields: Any) -> ServerConfig:
    return ServerConfig(name=name, transport=TransportKind.STDIO, command=fields.pop("command", "unused"), **fields)


async def _hosted(name: str, target: Any | None, config: ServerConfig | None = None) -> ServerHost:
    host = ServerHost() if target is None else ServerHost(target_factory=lambda _c, _h: target)
    host.start([config or _config(name)])
    await host.wait_settled(60)
    if host.ready_count() != 1:
        raise RuntimeError(f"{name}: {host.connection(name).status.reason}")
    return host


async def measure_set(label: str, host: ServerHost) -> tuple[str, int, int, int, float]:
    builder = ContextBuilder(lambda t: count_tokens(MODEL, t), BUDGET)
    started = time.perf_counter()
    prompt = await asyncio.to_thread(builder.build, host.catalog, "")
    build_ms = (time.perf_counter() - started) * 1000
    dump = await naive_dump_tokens(host, host.catalog, lambda t: count_tokens(MODEL, t))
    resources = sum(1 for _ in host.catalog.resources())
    await host.stop_all()
    print(
        f"{label:<22} {resources:>7,} {prompt.catalog_tokens:>9,} {prompt.tokens:>9,} {dump:>12,}"
        f" {100 * prompt.catalog_tokens / max(dump, 1):>7.2f}% {build_ms:>9.0f}"
    )
    return label, resources, prompt.catalog_tokens, prompt.tokens, dump


async def loop_overhead() -> tuple[float, float]:
    """Per-iteration wall time of a turn, and of a bare streamed call to the same instant model."""
    host = await _hosted("demo", build_demo_server())
    per_iteration: list[float] = []
    bare: list[float] = []
    with ScriptedLLM() as llm:
        settings = ModelSettings("openai/instant", api_base=llm.url, max_retries=0)
        engine = ChatEngine(host, settings, ApprovalPolicy(StaticApprover(Decision.DENY)))
        await engine.system_prompt()  # warm the tokenizer and the prompt cache outside the timing
        await load_litellm()
        for _ in range(ROUNDS):
            llm.queue(
                *[calls(ToolCall("read_resource", {"uri": "demo://settings.json"})) for _ in range(ITERATIONS - 1)]
            )
            llm.queue(text("done"))
            started = time.perf_counter()
            final = await engine.start_turn(Conversation(), "Read the settings again and again.").wait()
            per_iteration.append((time.perf_counter() - started) / final.iterations)
            messages = llm.bodies()[-1]["messages"]
            for _ in range(ITERATIONS):
                llm.queue(calls(ToolCall("read_resource", {"uri": "demo://settings.json"})))
                started = time.perf_counter()
                async for _chunk in stream_completion(settings, messages, llm.bodies()[-1]["tools"], None):
                    pass
                bare.append(time.perf_counter() - started)
    await host.stop_all()
    return statistics.median(per_iteration) * 1000, statistics.median(bare) * 1000


async def main() -> int:
    print(f"Token counts: {MODEL} tokenizer (offline, as litellm counts); catalog budget {BUDGET:,} tokens.\n")
    print(f"{'set':<22} {'resources':>7} {'catalog':>9} {'system':>9} {'naive dump':>12} {'ratio':>8} {'build ms':>9}")
    rows = [await measure_set("demo server", await _hosted("demo", build_demo_server()))]
    if everything_available():
        params = everything_stdio_params()
        config = _config("everything", command=params.command, args=tuple(params.args))
        rows.append(await measure_set("server-everything", await _hosted("everything", None, config)))
    else:
        print("server-everything      (not installed: run `make test` once to install the npm test peers)")
    synthetic = await _hosted("synthetic", build_synthetic_server(SYNTHETIC_COUNT))
    rows.append(await measure_set(f"synthetic {SYNTHETIC_COUNT:,}", synthetic))

    per_iteration, bare = await loop_overhead()
    print(f"\nLoop, instant local model, {ITERATIONS} iterations x {ROUNDS} rounds (medians):")
    print(f"  per iteration {per_iteration:.1f} ms; bare streamed model call {bare:.1f} ms;")
    print(f"  engine overhead {per_iteration - bare:.1f} ms per iteration (prompt, tool dispatch, resource read)")

    missed = [
        f"{label}: catalog is {catalog / dump:.1%} of the dump"
        for label, _, catalog, _, dump in rows
        if catalog > GOAL_RATIO * dump
    ]
    large = rows[-1]
    if large[3] > GOAL_LARGE:
        missed.append(f"{large[0]}: system prompt {large[3]:,} tokens > {GOAL_LARGE:,}")
    print(
        "\nGoals: catalog <= 5% of the naive dump; <= 2,000 tokens at 10,000 resources:",
        "met" if not missed else "MISSED",
    )
    for line in missed:
        print(f"  {line}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""The catalog system prompt stays bounded, relevant and searchable; read results are rendered honestly."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp_types import Prompt, PromptArgument, Resource, ResourceTemplate

from desktop_app.core.catalog import Catalog, ServerCatalog
from desktop_app.core.chat.catalog_search import words_of
from desktop_app.core.chat.context import ContextBuilder, catalog_entries
from desktop_app.core.chat.synthetic import cap_text, not_found_message, render_contents, search_resources
from desktop_app.core.chat.tokens import count_tokens
from desktop_app.core.content import ResourceContent
from desktop_app.core.host import ServerHost
from desktop_app.core.model.settings import ChatOptions
from tests.engine_kit import finished, run, scripted_engine
from tests.hosting import serving
from tests.llm_server import (
    LITELLM_WARNINGS,
    ScriptedLLM,
    ToolCall,
    calls,
    text,
    tool_messages,
    tool_names,
)
from tests.servers.paginated_server import build_paginated_server, resource_uri

MODEL = "openai/gpt-4o-mini"
pytestmark = LITELLM_WARNINGS


def count(text_: str) -> int:
    return count_tokens(MODEL, text_)


def big_catalog(n: int = 10_000) -> Catalog:
    resources = tuple(
        Resource(
            uri=f"synthetic://{'docs' if i % 3 else 'logs'}/{i:05d}",
            name=f"doc-{i:05d}",
            title=f"Synthetic document {i}",
            description=f"Notes about subject {i % 97} and item {i}",
            mime_type="text/plain",
            size=1000 + i,
        )
        for i in range(n)
    )
    templates = (ResourceTemplate(uri_template="synthetic://search/{query}", name="search", description="Search hits"),)
    prompts = (
        Prompt(
            name="digest", description="Summarise documents", arguments=[PromptArgument(name="topic", required=True)]
        ),
    )
    big = ServerCatalog(
        "big", instructions="A synthetic archive.", resources=resources, templates=templates, prompts=prompts
    )
    small = ServerCatalog(
        "small", resources=(Resource(uri="small://readme", name="readme", mime_type="text/markdown"),)
    )
    return Catalog({"big": big, "small": small})


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return big_catalog()


def test_ten_thousand_resources_stay_under_two_thousand_tokens(catalog: Catalog) -> None:
    builder = ContextBuilder(count, 1500)
    prompt = builder.build(catalog, "", frozenset({"big"}))
    assert prompt.total == 10_003 and prompt.summarized
    assert prompt.catalog_tokens <= 1500
    assert prompt.tokens < 2000
    assert prompt.full_catalog_tokens is None  # far over the budget: not counted on a turn's way
    assert builder.full_tokens(catalog) > 100_000
    assert (
        "Offers 10,000 resources, 1 templates and 1 prompts; not all are listed here (use search_resources)."
        in prompt.text
    )
    assert "synthetic://docs/ (6,666)" in prompt.text and "synthetic://logs/ (3,334)" in prompt.text
    # The few templates and prompts are always worth listing, and every server appears.
    assert "synthetic://search/{query}" in prompt.text and "digest(topic*)" in prompt.text
    assert "small://readme" in prompt.text and "\nA synthetic archive.\n</server-instructions>" in prompt.text


def test_a_new_server_costs_only_its_own_lines(catalog: Catalog) -> None:
    """A catalog that changed in one server makes lines for that server only, in the same order."""
    known: dict[str, Any] = {}
    first = catalog_entries(catalog, known)
    other = ServerCatalog(
        "other", resources=(Resource(uri="other://a", name="a"),), templates=catalog.servers["big"].templates
    )
    grown = catalog.with_server(other)
    second = catalog_entries(grown, known)
    assert second == catalog_entries(grown)
    big_lines = [entry for entry in second if entry.server == "big"]
    assert all(a is b for a, b in zip(big_lines, [e for e in first if e.server == "big"], strict=True))
    assert [e.kind for e in second] == sorted((e.kind for e in second), key=["resource", "template", "prompt"].index)


def test_the_entries_relevant_to_the_question_are_listed(catalog: Catalog) -> None:
    builder = ContextBuilder(count, 1500)
    prompt = builder.build(catalog, "What do my notes say in doc 7777?")
    assert "synthetic://docs/07777" in prompt.text
    assert prompt.text.index("synthetic://docs/07777") < prompt.text.index("small://readme")  # server order kept
    assert builder.build(catalog, "What do my notes say in doc 7777?") is prompt  # cached per catalog and query


def test_a_small_catalog_is_listed_whole() -> None:
    resources = (
        Resource(uri="s://a", name="alpha", size=2048),
        Resource(uri="s://docs/readme.md", name="readme.md", mime_type="text/markdown"),
    )
    prompt = ContextBuilder(count, 1500).build(Catalog({"s": ServerCatalog("s", resources=resources)}))
    assert not prompt.summarized and prompt.listed == prompt.total == 2
    assert "- s://a — alpha (2.0 KB)" in prompt.text
    assert "- s://docs/readme.md (text/markdown)" in prompt.text  # a name the URI ends with is not repeated
    assert prompt.catalog_tokens == prompt.full_catalog_tokens


def test_a_catalog_near_its_budget_is_counted_whole_and_bounded() -> None:
    resources = tuple(Resource(uri=f"s://doc/{i}", name=f"doc {i}") for i in range(200))
    prompt = ContextBuilder(count, 100).build(Catalog({"s": ServerCatalog("s", resources=resources)}))
    assert prompt.summarized and prompt.catalog_tokens <= 100
    assert prompt.full_catalog_tokens is not None and prompt.full_catalog_tokens > 1000


def test_search_finds_what_the_prompt_leaves_out(catalog: Catalog) -> None:
    builder = ContextBuilder(count, 1500)
    found, is_error = search_resources(builder, catalog, "item 4241", None)
    assert not is_error
    first = found.splitlines()[1]
    assert first.startswith("- synthetic://docs/04241 — Synthetic document 4241") and "[server: big]" in first
    assert len(found.splitlines()) <= 26
    none, _ = search_resources(builder, catalog, "zebra", None)
    assert none == "No resource or template matches 'zebra'. Try other or fewer words."
    only_small, _ = search_resources(builder, catalog, "readme", "small")
    assert "small://readme" in only_small
    bad, is_error = search_resources(builder, catalog, "x", "nope")
    assert is_error and bad.startswith("No server named 'nope'.")


def test_not_found_is_bounded_with_a_hint(catalog: Catalog) -> None:
    message = not_found_message(catalog, "synthetic://docs/0777", search_offered=True)
    assert message.startswith("Resource 'synthetic://docs/0777' not found. Available URIs: [")
    assert "(and 9,981 more; use search_resources to find others)" in message
    assert 'Templates (fill in the variables): ["synthetic://search/{query}"]' in message
    assert len(message) < 2000


def test_words_ignore_filler() -> None:
    assert words_of("What is in the Guide, please?") == ["guide"]


@pytest.mark.anyio
async def test_several_contents_are_all_returned_and_labelled() -> None:
    contents = (
        ResourceContent("multi://a", "text/plain", text="first part"),
        ResourceContent("multi://a#2", "application/pdf", data=b"%PDF-1.7 not really"),
    )
    rendered, images = await render_contents(contents, ChatOptions())
    assert rendered == (
        "[Content 1 of 2: multi://a (text/plain)]\nfirst part\n\n"
        "[Content 2 of 2: multi://a#2 (application/pdf)]\n"
        "[Binary resource: application/pdf, 19 B. Not text; it is shown to the user in the app.]"
    )
    assert images == ()


def test_cap_text_keeps_what_fits_and_says_so() -> None:
    assert cap_text("short", 1024) == ("short", False)
    capped, truncated = cap_text("é" * 2000, 1024)  # 4000 bytes of UTF-8
    assert truncated
    assert capped.startswith("[Truncated by MCP Desk's safety cap: the full content is 3.9 KB (2,000 characters);")
    assert "é" * 512 in capped and "é" * 513 not in capped


# -- the search tool in a real turn -----------------------------------------------------------


@pytest.fixture
async def paged_host() -> AsyncIterator[ServerHost]:
    server = build_paginated_server(4, 25)
    async with serving({"paged": server}) as host:
        yield host


@pytest.mark.anyio
async def test_search_tool_is_offered_when_the_catalog_is_cut(
    paged_host: ServerHost, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    llm.queue(
        calls(ToolCall("search_resources", {"query": "resource-0077"})),
        calls(ToolCall("read_resource", {"uri": resource_uri(77)})),
        text("Found it."),
    )
    engine = scripted_engine(paged_host, llm, catalog_budget=300)
    events = await run(engine, "Where is it?")
    assert finished(events).text == "Found it."
    first, second, third = llm.bodies()
    assert "search_resources" in tool_names(first)
    assert resource_uri(77) not in first["messages"][0]["content"]
    [found] = tool_messages(second)
    header, best = found["content"].splitlines()[:2]
    assert header.endswith("match(es) for 'resource-0077'; the best 25:")
    assert best.startswith("- paged://resource/0077 — resource-0077")
    assert tool_messages(third)[1]["content"] == f"contents of {resource_uri(77)}"
    figures = await engine.system_prompt()
    assert figures.summarized and figures.catalog_tokens <= 300

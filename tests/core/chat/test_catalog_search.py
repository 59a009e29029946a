"""Catalog entries found by whole words of a question, rarer words weighing more."""

from __future__ import annotations

from desktop_app.core.chat.catalog_search import CatalogEntry, EntryKind, rank, words_of


def entry(text: str, kind: EntryKind = "resource") -> CatalogEntry:
    return CatalogEntry(kind, "docs", text, f"- {text}", text.lower())


def test_only_whole_words_match_whatever_separates_them() -> None:
    entries = [entry("notes/release-plan.md"), entry("releases_2024"), entry("pre-release"), entry("prerelease")]
    found = [e.key for _, e in rank(entries, "Release?")]
    assert found == ["notes/release-plan.md", "pre-release"]
    assert rank(entries, "2024")[0][1].key == "releases_2024"  # "_" separates words, as any non-alphanumeric


def test_rarer_shared_words_rank_first_then_catalog_order() -> None:
    entries = [entry("guide overview"), entry("guide install"), entry("install guide linux"), entry("faq")]
    ranked = [e.key for _, e in rank(entries, "how do I install the guide on linux")]
    assert ranked == ["install guide linux", "guide install", "guide overview"]
    assert rank(entries, "the of and") == [] and words_of("the of and") == []


def test_templates_and_prompts_win_a_tie() -> None:
    entries = [entry("report 1"), entry("report {year}", "template")]
    assert [e.kind for _, e in rank(entries, "report")] == ["template", "resource"]

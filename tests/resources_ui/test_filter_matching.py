"""The filter's matching: every word, in any order, prefix matches first."""

from __future__ import annotations

from resources_ui.filter_matching import match_rank, query_words
from resources_ui.tree_entries import EntryKind, make_entry


def test_match_rank_words_any_order_prefix_first() -> None:
    entry = make_entry(
        EntryKind.RESOURCE, "s", "docs://annual/report.pdf", "annual-report", description="Yearly numbers"
    )
    words = query_words
    assert match_rank(entry, words("annual")) == 0  # the label starts with it
    assert match_rank(entry, words("report annual")) == 1  # any order; "report" starts a word
    assert match_rank(entry, words("NUMBERS yearly")) == 2  # case-insensitive, description counts
    assert match_rank(entry, words("nual")) == 2  # inside a word only
    assert match_rank(entry, words("annual missing")) is None

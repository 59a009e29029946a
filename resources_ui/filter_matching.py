"""What the browser's filter matches: every word of the query, anywhere, and in which order.

Plain functions over `Entry` values, apart from the proxy that shows them: containment is one
C-level string search per word, and a rank is computed only for what matched, so a keystroke over
10,000 entries stays within a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import add, attrgetter
from typing import Final

from resources_ui.tree_entries import Entry

_LABEL: Final = attrgetter("folded_label")


def query_words(query: str) -> tuple[str, ...]:
    return tuple(query.casefold().split())


def _at_word_start(text: str, word: str, start: int) -> bool:
    position = start
    while position >= 0:
        if position == 0 or not text[position - 1].isalnum():
            return True
        position = text.find(word, position + 1)
    return False


def _word_rank(entry: Entry, word: str) -> int:
    """`match_rank` for one word that `entry.folded_text` is known to contain."""
    if entry.folded_label.startswith(word):
        return 0
    return 1 if _at_word_start(entry.folded_text, word, entry.folded_text.find(word)) else 2


def match_rank(entry: Entry, words: Sequence[str]) -> int | None:
    """How well `entry` matches every word (lower is better), or None if one word is missing.

    Per word: 0 when the label starts with it, 1 when some word of the label, name, URI or
    description starts with it, 2 when it only occurs inside a word.
    """
    if any(word not in entry.folded_text for word in words):
        return None
    return sum(_word_rank(entry, word) for word in words)


def ranked_matches(pool: Sequence[Entry], words: Sequence[str]) -> tuple[Sequence[Entry], Sequence[Entry]]:
    """The entries of `pool` that contain every word: ranked for display, and in `pool`'s order.

    The two are one list when the ranking changes nothing (every label starts with every word).
    """
    # Containment first, in one C-level pass per word; ranks only for what matched. Plain int
    # lists and a stable index sort: no per-row tuples for the collector to chase.
    found: Sequence[Entry] = pool
    for word in words:
        found = [entry for entry in found if word in entry.folded_text]
    ranks: list[int] | None = None
    labels = list(map(_LABEL, found))
    for word in words:
        # Labels that start with the word rank 0: tested in C; only the others cost a call each.
        starts = list(map(str.startswith, labels, repeat(word)))
        if all(starts):
            continue
        word_ranks = [0 if start else _word_rank(entry, word) for start, entry in zip(starts, found, strict=True)]
        ranks = word_ranks if ranks is None else list(map(add, ranks, word_ranks))
    if ranks is None or not any(ranks):
        return found, found
    return [found[i] for i in sorted(range(len(found)), key=ranks.__getitem__)], found

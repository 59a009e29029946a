"""The catalog's entries and finding them by the words of a question: the prompt lists the relevant
ones first when not all fit, and `search_resources` finds the rest."""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Sequence
from typing import Final, Literal, NamedTuple

EntryKind = Literal["resource", "template", "prompt", "skill"]


class CatalogEntry(NamedTuple):
    """One line of the catalog, with the words it can be found by (a tuple: a catalog of 10,000
    resources builds one per resource, and tuples build fastest)."""

    kind: EntryKind
    server: str
    key: str
    line: str
    text: str
    """What it can be found by, lower-cased: searched for whole words (`rank`)."""


_WORD: Final = re.compile(r"[a-z0-9]{2,}")
"""A word: a run of two or more letters and digits (a single character finds too much)."""
_WORD_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_STOPWORDS: Final = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "show",
        "tell",
        "the",
        "this",
        "to",
        "what",
        "which",
        "with",
        "you",
        "your",
        "about",
        "give",
        "find",
        "read",
    ]
)
_TEMPLATE_BONUS: Final = 0.5


def words_of(text: str) -> list[str]:
    """Lower-case words minus common filler, for matching a question against catalog entries."""
    return [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


def haystack_of(entries: Sequence[CatalogEntry]) -> tuple[str, list[int]]:
    """The entries' searchable texts joined by newlines, and where each begins: what `rank` searches."""
    joined = "\n".join(entry.text for entry in entries)
    return joined, list(itertools.accumulate((len(entry.text) + 1 for entry in entries), initial=0))


def rank(
    entries: Sequence[CatalogEntry], query: str, haystack: tuple[str, list[int]] | None = None
) -> list[tuple[float, CatalogEntry]]:
    """Entries that share words with `query`, best first (rarer shared words weigh more).

    Each query word is looked for in all the entries' text at once, by one regular expression
    over their join, rather than through a set of words made per entry: the entries of a
    catalog of 10,000 resources are made as a first request waits for them. `haystack` is that
    join (`haystack_of(entries)`) when the caller keeps it between questions."""
    terms = set(words_of(query))
    if not terms:
        return []
    joined, starts = haystack if haystack is not None else haystack_of(entries)
    holders: dict[str, set[int]] = {}
    for term in terms:
        # The word first, what precedes it checked after: a literal is found by a fast scan.
        found = (match.start() for match in re.finditer(rf"{re.escape(term)}(?![a-z0-9])", joined))
        holders[term] = {
            bisect.bisect_right(starts, at) - 1 for at in found if at == 0 or joined[at - 1] not in _WORD_CHARS
        }
    n = len(entries)
    shared_by: dict[int, list[str]] = {}
    for term, indexes in holders.items():
        for index in indexes:
            shared_by.setdefault(index, []).append(term)
    scored: list[tuple[float, int, CatalogEntry]] = []
    for index, shared in shared_by.items():
        entry = entries[index]
        score = sum(math.log(1 + n / len(holders[t])) for t in shared)
        if entry.kind != "resource":
            score += _TEMPLATE_BONUS
        scored.append((score, index, entry))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(score, entry) for score, _, entry in scored]

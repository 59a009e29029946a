"""Find in history: the chats whose title or messages contain a text, with the bit that matched.

The user's and the model's messages are indexed as they are stored (SQLite's FTS5 with trigrams,
`ConversationStore`), so any part of a word three characters or longer is found through the index,
any case; shorter text is looked for row by row. A search opens a read-only connection of its own:
it may run in a worker thread while the store goes on writing (WAL).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any, Final

INDEX: Final = "CREATE VIRTUAL TABLE message_text USING fts5(conversation_id UNINDEXED, text, tokenize='trigram')"
SNIPPETS: Final = 300
"""Matching chats shown with the text that matched; further ones (a very common word) show their title only."""
SNIPPET_CHARS: Final = 60
"""Characters of a message shown around what matched."""


def message_text(message: dict[str, Any]) -> str:
    """What a user or the model wrote in `message` (its text parts); "" for tool results and the rest."""
    if message.get("role") not in ("user", "assistant"):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _like(query: str) -> str:
    """`query` as a LIKE pattern matching it anywhere, its own % and _ taken literally."""
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def snippet(text: str, query: str) -> str:
    """About `SNIPPET_CHARS` characters of `text` around the first place `query` is, any case, with "…"
    where it was cut. Cut here rather than by FTS5's `snippet()`, which re-reads each message a
    character (a trigram token) at a time: 300 snippets took 90–170 ms, this well under one."""
    found = re.search(re.escape(query), text, re.IGNORECASE)
    middle = (found.start() + found.end()) // 2 if found else 0
    start = max(0, min(middle - SNIPPET_CHARS // 2, len(text) - SNIPPET_CHARS))
    end = start + SNIPPET_CHARS
    return ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")


def find_in_history(reader: str, query: str, listing: str) -> list[tuple[tuple[Any, ...], str]]:
    """(the row `listing` gives of a chat, what matched: "" when its title did) for each chat of the history
    opened by the URI `reader` (read-only) that contains `query`, the most recently updated first."""
    query = query.strip()
    if not query:
        return []
    db = sqlite3.connect(reader, uri=True)
    try:
        if len(query) >= 3:  # the trigram index: a phrase of trigrams matches any part of the text
            where, argument = "message_text MATCH ?", '"' + query.replace('"', '""') + '"'
        else:
            where, argument = "text LIKE ? ESCAPE '\\'", _like(query)
        newest: dict[str, int] = {}
        for rowid, conversation_id in db.execute(
            f"SELECT rowid, conversation_id FROM message_text WHERE {where} ORDER BY rowid DESC", (argument,)
        ):
            newest.setdefault(conversation_id, rowid)
        shown = list(newest.values())[:SNIPPETS]
        snippets = {
            rowid: snippet(text, query)
            for rowid, text in db.execute(
                f"SELECT rowid, text FROM message_text WHERE rowid IN ({','.join('?' * len(shown))})", shown
            )
        }
        titled = {
            row[0] for row in db.execute("SELECT id FROM conversations WHERE title LIKE ? ESCAPE '\\'", (_like(query),))
        }
        listed = db.execute(listing + " ORDER BY c.updated DESC").fetchall()
    finally:
        db.close()
    return [
        (row, "" if row[0] in titled else " ".join(snippets.get(newest[row[0]], "").split()))
        for row in listed
        if row[0] in titled or row[0] in newest
    ]

"""How many tokens a model reads at most, from the model library's own table, without importing it.

The status bar's meter fills against this number. litellm ships a table of models
(`model_prices_and_context_window_backup.json`, 3.5 MB); parsing it whole holds the interpreter for
a tenth of a second, and importing litellm costs seconds, so only the model's own entry is found in
the text and parsed. A model the table does not know (a local server's, a new name) has no window:
the meter then shows the count alone.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Final

TABLE: Final = "model_prices_and_context_window_backup.json"


@functools.cache
def context_window(model: str) -> int | None:
    """The most tokens `model` (a litellm model string) takes in one request, or None when unknown.

    Each model's figure is kept; the table's text is read again only for a model not asked about yet."""
    text = _table()
    for key in dict.fromkeys((model, model.partition("/")[2])):
        if key and (tokens := _entry_tokens(text, key)) is not None:
            return tokens
    return None


def _entry_tokens(text: str, key: str) -> int | None:
    at = text.find(f"{json.dumps(key)}: {{")
    if at < 0:
        return None
    try:
        entry, _end = json.JSONDecoder().raw_decode(text, text.index("{", at))
    except ValueError:
        return None
    for field in ("max_input_tokens", "max_tokens"):
        tokens = entry.get(field) if isinstance(entry, dict) else None
        if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
            return tokens
    return None


def _table() -> str:
    """The table's text ("" without litellm)."""
    spec = importlib.util.find_spec("litellm")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(location) / TABLE
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return ""

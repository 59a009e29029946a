"""Where each conversation's trace lives: a JSON Lines file of its own beside the conversations.

The conversations database keeps messages and what the user saw; the trace of each conversation
(payloads, ledgers, MCP exchanges) goes to `ledgers/<conversation id>.jsonl` in the same folder, so
it survives a restart without the database changing shape, and deleting a chat can delete it.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from desktop_app.core.ledger.trace import load_trace
from desktop_app.core.ledger.trace_view import TraceView

log = logging.getLogger(__name__)

FOLDER_NAME: Final = "ledgers"
SUFFIX: Final = ".jsonl"
_SAFE_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")


class LedgerStore:
    """The traces of the conversations stored in one data folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def beside(cls, conversations_db: Path) -> LedgerStore:
        """The store next to a conversations database file."""
        return cls(conversations_db.parent / FOLDER_NAME)

    def path(self, conversation_id: str) -> Path:
        """The trace file of a conversation (an id that is not a plain name is hashed into one)."""
        name = conversation_id if _SAFE_ID.fullmatch(conversation_id) else _hashed(conversation_id)
        return self.folder / f"{name}{SUFFIX}"

    def load(self, conversation_id: str) -> TraceView:
        """The conversation's trace; empty when it has none (a chat from before traces were kept)."""
        path = self.path(conversation_id)
        try:
            return TraceView(load_trace(path))
        except FileNotFoundError:
            return TraceView([])
        except (OSError, ValueError) as exc:
            log.warning("cannot read the trace %s: %s", path, exc)
            return TraceView([])

    def delete(self, conversation_id: str) -> None:
        self.path(conversation_id).unlink(missing_ok=True)

    def prune(self, keep: Iterable[str]) -> int:
        """Delete the traces of conversations not in `keep` (deleted chats); returns how many went."""
        wanted = {self.path(conversation_id).name for conversation_id in keep}
        removed = 0
        for path in self.folder.glob(f"*{SUFFIX}") if self.folder.is_dir() else ():
            if path.name not in wanted:
                path.unlink(missing_ok=True)
                removed += 1
        return removed


def _hashed(conversation_id: str) -> str:
    return "id-" + hashlib.sha256(conversation_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]

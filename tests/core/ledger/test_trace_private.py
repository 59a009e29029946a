"""Traces and exports hold whole conversations: 0600 whatever the umask, in 0700 folders the app makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.chat.conversations import Conversation, ConversationStore
from desktop_app.core.ledger.export import ChatToExport, export_chat
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.ledger.store import LedgerStore
from desktop_app.core.ledger.trace import TraceWriter, header
from tests.file_modes import mode

pytestmark = pytest.mark.usefixtures("wide_umask")


def test_a_conversations_trace_is_private_in_a_private_folder(tmp_path: Path) -> None:
    store = LedgerStore.beside(tmp_path / "data" / "conversations.sqlite3")
    path = store.path("c1")
    writer = TraceWriter(path, Scrubber, first=header("c1", "test"))
    writer.add({"type": "turn", "message": "the whole conversation"})
    writer.flush()
    assert writer.failed is None and "the whole conversation" in path.read_text()
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700


def test_an_export_is_private_and_replaces_a_readable_file_privately(tmp_path: Path) -> None:
    conversations = ConversationStore(tmp_path / "data" / "conversations.sqlite3")
    conversation = Conversation.start(conversations, "Private")
    conversation.append({"role": "user", "content": "my diagnosis"})
    chosen = tmp_path / "exports"
    chosen.mkdir(mode=0o755)
    (chosen / "chat.md").write_text("an older export")
    (chosen / "chat.md").chmod(0o644)
    chat = ChatToExport(conversation.id, conversation.title, conversation.messages, conversation.events)

    exported = export_chat(chat, LedgerStore.beside(conversations.path), Scrubber(), chosen / "chat.md")

    assert "my diagnosis" in exported.markdown.read_text()
    assert mode(exported.markdown) == 0o600 and mode(exported.trace) == 0o600
    assert mode(chosen) == 0o755, "the user's own folder is theirs"

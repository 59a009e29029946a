"""The trace file: written when flushed, scrubbed, shared messages written once and read back whole."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.ledger.parts import Cut, Ledger, Part, PartKind, Section
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.ledger.store import LedgerStore
from desktop_app.core.ledger.trace import TraceWriter, header, load_trace, summarize_base64, write_records
from desktop_app.core.ledger.trace_view import TraceView, transcript_document

SECRET = "server-env-secret-value"


def request(turn: str, number: int, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "model_request", "turn": turn, "request": number, "payload": {"model": "m", "messages": messages}}


def test_records_wait_for_flush_then_are_scrubbed_and_shared_messages_come_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, lambda: Scrubber([SECRET]), first=header("conv", "9.9"))
    history = [{"role": "system", "content": "big " * 1000}, {"role": "user", "content": f"my key is {SECRET}"}]
    first = request("a", 1, history)
    second = request("a", 2, [*history, {"role": "assistant", "content": "ok"}])
    writer.add(first)
    writer.add(second)
    assert not path.exists()
    writer.flush()
    raw = path.read_text()
    assert SECRET not in raw and raw.count("big " * 1000) == 1  # the history is written once
    lines = [json.loads(line) for line in raw.splitlines()]
    assert lines[0]["type"] == "trace" and lines[0]["conversation"] == "conv"
    assert lines[2]["payload"]["messages"] == {
        "same_as": ["a", 1],
        "first": 2,
        "then": [{"role": "assistant", "content": "ok"}],
    }
    records = load_trace(path)
    assert records[2]["payload"]["messages"][1]["content"] == "my key is ***"
    assert [len(r["payload"]["messages"]) for r in records[1:]] == [2, 3]

    writer.add({"type": "turn", "turn": "b"})
    writer.flush()  # a later flush appends; the header is not written again
    assert [r["type"] for r in load_trace(path)] == ["trace", "model_request", "model_request", "turn"]


def ledger_record(turn: str, number: int, messages: int) -> dict[str, Any]:
    parts = [Part(Section.SYSTEM, PartKind.GUIDANCE, "guidance", 700, "You are MCP Desk")]
    parts += [
        Part(Section.MESSAGES, PartKind.MESSAGE, "Your message", 9, f"Question {n} {SECRET}", None, n)
        for n in range(messages)
    ]
    parts.append(Part(Section.MESSAGES, PartKind.FRAMING, "Roles and message framing", 3 + 4 * messages))
    return {"type": "ledger", "turn": turn, "request": number, "ledger": Ledger("m", tuple(parts)).to_dict()}


def test_a_ledger_repeating_the_previous_ones_parts_refers_to_them_and_reads_back_whole(tmp_path: Path) -> None:
    """A long chat's every ledger lists the chat so far: the file grows by what each request adds."""
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, lambda: Scrubber([SECRET]))
    written = [ledger_record("a", 1, 40), ledger_record("a", 2, 41), ledger_record("b", 1, 43)]
    for record in written:
        writer.add(record)
        writer.flush()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[1]["ledger"]["parts"]["same_as"] == ["a", 1] and lines[1]["ledger"]["parts"]["first"] == 41
    assert [p["label"] for p in lines[2]["ledger"]["parts"]["then"]] == [
        "Your message",
        "Your message",
        "Roles and message framing",
    ]
    assert path.read_text().count("Question 7 ") == 1 and SECRET not in path.read_text()
    view = TraceView(load_trace(path))
    ledgers = [request.ledger for request in view.requests()]
    assert [len(ledger.parts) for ledger in ledgers if ledger is not None] == [42, 43, 45]
    assert [ledger.counted for ledger in ledgers if ledger is not None] == [
        Ledger.from_dict(record["ledger"]).counted for record in written
    ]
    assert ledgers[2] is not None and ledgers[2].parts[8].preview == "Question 7 ***"


def test_adding_never_waits_for_a_flush_at_work_and_records_keep_their_order(tmp_path: Path) -> None:
    """The event loop adds while a worker thread scrubs and writes a long chat's request."""
    path = tmp_path / "t.jsonl"
    scrubbing, go_on = threading.Event(), threading.Event()

    def slow_scrubber() -> Scrubber:
        scrubbing.set()
        go_on.wait()
        return Scrubber([SECRET])

    writer = TraceWriter(path, slow_scrubber)
    writer.add(request("a", 1, [{"role": "user", "content": "one"}]))
    worker = threading.Thread(target=writer.flush)
    worker.start()
    scrubbing.wait()
    writer.add(request("a", 2, [{"role": "user", "content": f"two {SECRET}"}]))  # returns at once: no deadlock
    second = threading.Thread(target=writer.flush)
    second.start()
    go_on.set()
    worker.join()
    second.join()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["request"] for line in lines] == [1, 2] and SECRET not in path.read_text()


def test_a_line_cut_short_is_skipped_and_a_foreign_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(header("c", "1")) + "\n" + '{"type": "turn", "turn": "x"}\n{"type": "mod')
    assert [r["type"] for r in load_trace(path)] == ["trace", "turn"]
    other = tmp_path / "other.jsonl"
    other.write_text('{"format": "something else"}\n')
    with pytest.raises(ValueError, match="not an MCP Desk trace"):
        load_trace(other)


def test_long_base64_is_written_as_its_size_and_digest() -> None:
    blob = "QUJD" * 1000
    summarized = summarize_base64({"contents": [{"uri": "a", "blob": blob}, {"text": "short", "data": "QUJD"}]})
    assert summarized["contents"][0]["blob"].startswith("[base64: 3,000 bytes, sha256 ")
    assert summarized["contents"][1] == {"text": "short", "data": "QUJD"}


def test_a_written_export_reads_back_as_it_was(tmp_path: Path) -> None:
    records = [header("c", "1"), request("t", 1, [{"role": "user", "content": "a"}] * 3), {"type": "turn", "turn": "t"}]
    path = tmp_path / "export.jsonl"
    write_records(path, records, Scrubber())
    assert load_trace(path) == records


def test_the_ledger_survives_its_json_form() -> None:
    ledger = Ledger(
        "openai/gpt-4o",
        (
            Part(Section.SYSTEM, PartKind.GUIDANCE, "guidance", 700),
            Part(Section.MESSAGES, PartKind.RESOURCE, "Resource a://b (read)", 320, "text", "srv", 3),
        ),
        (Cut("read_cap", "a://b: cut"),),
        reported_prompt_tokens=1015,
        reported_completion_tokens=9,
        notes=("counted with x",),
    )
    again = Ledger.from_dict(json.loads(json.dumps(ledger.to_dict())))
    assert again == ledger and again.counted == 1020
    assert again.difference == pytest.approx(-5 / 1015) and again.agrees() is True
    assert ledger.with_usage(None, None).agrees() is None  # the provider said nothing
    assert ledger.with_usage(900, 1).agrees() is None  # too small for a share to mean anything
    assert ledger.with_usage(1200, 1).agrees() is False
    with pytest.raises(ValueError, match="unreadable ledger"):
        Ledger.from_dict({"parts": [{"section": "elsewhere"}]})


def test_the_store_finds_the_request_behind_an_answer_and_prunes_deleted_chats(tmp_path: Path) -> None:
    store = LedgerStore(tmp_path / "ledgers")
    answered = {"type": "model_response", "turn": "t", "request": 1, "message": {"content": "Same."}}
    records = [
        header("c1", "1"),
        request("t", 1, []),
        answered,
        request("u", 1, []),
        {**answered, "turn": "u"},
        request("u", 2, []),
    ]
    write_records(store.path("c1"), records, Scrubber())
    view = store.load("c1")
    assert [(r.turn, r.number) for r in view.requests()] == [("t", 1), ("u", 1), ("u", 2)]
    assert view.request_for_answer("Same.", 1).turn == "u"  # the second answer with this text
    assert view.request_for_answer("still streaming") == view.requests()[-1]  # no response yet
    assert store.load("never-traced").requests() == []
    assert store.path("../../etc/passwd").parent == store.folder  # an odd id is hashed into a name
    store.path("c2").write_text("")
    assert store.prune(["c1"]) == 1 and store.path("c1").exists() and not store.path("c2").exists()


def test_the_transcript_view_has_what_the_older_file_had() -> None:
    records = [
        {"type": "turn", "turn": "t", "model": "openai/m"},
        request("t", 1, [{"role": "user", "content": "hi"}]),
        {"type": "Usage", "turn": "t", "t": 5, "iteration": 1},
        {"type": "ConversationTainted", "turn": "t", "t": 6, "reason": "why"},
        {"type": "TurnFinished", "turn": "t", "t": 7, "reason": "stop"},
    ]
    assert transcript_document(records) == {
        "model": "openai/m",
        "taint": ["why"],
        "messages": [{"role": "user", "content": "hi"}],
        "events": [
            {"type": "Usage", "iteration": 1},
            {"type": "ConversationTainted", "reason": "why"},
            {"type": "TurnFinished", "reason": "stop"},
        ],
    }
    assert TraceView(records).turns()[0]["model"] == "openai/m"

"""A server that floods refused connections leaves a handful of log lines that still say how much it tried."""

from __future__ import annotations

from desktop_app.core.sandbox.refusals import NAMED_HOSTS, Refusals


def test_a_flood_is_named_once_per_host_counted_tenfold_and_summed_up_at_the_end() -> None:
    lines: list[str] = []
    refusals = Refusals(lambda level, text: lines.append(f"{level}: {text}"))
    for _ in range(120):
        refusals.refused("evil.example", "not in allowedDomains")
    for n in range(NAMED_HOSTS + 5):
        refusals.refused(f"h{n}.example", "not in allowedDomains")
    refusals.summarise()
    assert lines[:3] == [
        "warning: sandbox refused a connection to evil.example (not in allowedDomains)",
        "warning: sandbox refused 10 connections to evil.example so far",
        "warning: sandbox refused 100 connections to evil.example so far",
    ]
    assert len(lines) == 3 + (NAMED_HOSTS - 1) + 1 + 1
    assert lines[-2] == f"warning: sandbox refused connections to more than {NAMED_HOSTS} hosts; counting the rest"
    assert (
        lines[-1]
        == f"info: sandbox refused {120 + NAMED_HOSTS + 5} connections in all, to {NAMED_HOSTS + 1} or more hosts"
    )


def test_nothing_more_is_said_at_the_end_when_every_refusal_was_logged() -> None:
    lines: list[str] = []
    refusals = Refusals(lambda level, text: lines.append(text))
    refusals.refused("evil.example", "in deniedDomains")
    refusals.summarise()
    assert lines == ["sandbox refused a connection to evil.example (in deniedDomains)"]

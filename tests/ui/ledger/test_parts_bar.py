"""The ledger's stacked bar: one segment per kind of part (the system prompt, each server's catalog and
tools, MCP Desk's tools, the messages, the resources read), each as wide as its tokens, drawn in the
theme's colours in light and dark, named in a legend with its count; a hostile server's name is plain
text and elided; a ledger without tokens draws no bar (and divides by nothing)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_app.core.ledger.parts import Ledger, Part, PartKind, Section
from desktop_app.core.ledger.trace_view import RequestView
from desktop_app.qt_kit.tokens import BACKGROUNDS, DARK, LIGHT, Palette, contrast_ratio
from desktop_app.ui.ledger.ledger_view import LedgerView
from desktop_app.ui.ledger.parts_bar import (
    GAP,
    SERVER_TONES,
    PartsBar,
    app_tools_tone,
    legend_names,
    messages_tone,
    resources_tone,
    spans,
    system_tone,
)

HOSTILE = '<img src="/dev/zero"><b>FAKE ✔ verified</b>' + "-very-long" * 30


def part(section: Section, kind: PartKind, tokens: int, server: str | None = None) -> Part:
    return Part(section, kind, f"{kind} {server or ''}", tokens, server=server)


LEDGER = Ledger(
    model="openai/gpt-4o",
    parts=(
        part(Section.SYSTEM, PartKind.GUIDANCE, 300),
        part(Section.SYSTEM, PartKind.INSTRUCTIONS, 50, "notes"),
        part(Section.SYSTEM, PartKind.CATALOG, 200, "fx"),
        part(Section.SYSTEM, PartKind.CATALOG, 100, "notes"),
        part(Section.SYSTEM, PartKind.FRAMING, 20),
        part(Section.TOOLS, PartKind.TOOLS, 150, "fx"),
        part(Section.TOOLS, PartKind.TOOLS, 80),
        part(Section.TOOLS, PartKind.FRAMING, 20),
        part(Section.MESSAGES, PartKind.MESSAGE, 400),
        part(Section.MESSAGES, PartKind.TOOL_RESULT, 90, "fx"),
        part(Section.MESSAGES, PartKind.FRAMING, 10),
        part(Section.MESSAGES, PartKind.RESOURCE, 600, "fx"),
        part(Section.MESSAGES, PartKind.RESOURCE, 100, "notes"),
    ),
)
EXPECTED = [
    ("System prompt", 320),
    ("“fx”: catalog and tools", 350),
    ("“notes”: catalog and tools", 150),
    ("MCP Desk's tools", 100),
    ("Messages", 500),
    ("Resources read", 700),
]


def request(ledger: Ledger | None) -> RequestView:
    return RequestView("t1", 1, None, "", None if ledger is None else ledger.to_dict(), None)


def shown_bar(qtbot: QtBot, ledger: Ledger | None, width: int = 900) -> LedgerView:
    view = LedgerView()
    qtbot.addWidget(view)
    view.resize(width, 600)
    view.show_request(request(ledger))
    view.show()
    qtbot.waitExposed(view)
    return view


def test_each_segment_is_as_wide_as_its_tokens_and_named_with_its_count(qapp: QApplication, qtbot: QtBot) -> None:
    view = shown_bar(qtbot, LEDGER)
    bar = view.bar
    assert bar.isVisible()
    assert [(s.label, s.tokens) for s in bar.segments] == EXPECTED
    assert sum(s.tokens for s in bar.segments) == LEDGER.counted, "every token is in one segment"
    drawn = bar.bar.spans()
    room = bar.bar.width() - GAP * (len(EXPECTED) - 1)
    assert sum(wide for _x, wide in drawn) == room, "the segments fill the bar"
    for (label, tokens), (_x, wide) in zip(EXPECTED, drawn, strict=True):
        assert abs(wide - room * tokens / LEDGER.counted) <= 1.5, label
    assert [x for x, _w in drawn] == sorted(x for x, _w in drawn), "left to right, in the legend's order"
    assert [QLabel.text(name) for name in legend_names(bar)] == [label for label, _t in EXPECTED]
    for name in legend_names(bar):
        count = name.parentWidget().findChild(QLabel, "ledgerLegendCount")
        assert name.geometry().right() < count.geometry().left(), f"{name.text()} and its count side by side"
    counts = [label.text() for label in bar.legend.findChildren(QLabel, "ledgerLegendCount")]
    assert counts[0] == "320 · 15%" and counts[-1] == "700 · 33%"
    description = bar.bar.accessibleDescription()
    assert description.startswith("System prompt: 320 tokens (15%)") and "Resources read: 700 tokens" in description


def test_the_segments_are_drawn_in_the_theme_colours_in_light_and_dark(qapp: QApplication, qtbot: QtBot) -> None:
    view = shown_bar(qtbot, LEDGER)
    bar = view.bar.bar
    tones = [system_tone, SERVER_TONES[0], SERVER_TONES[1], app_tools_tone, messages_tone, resources_tone]
    for theme in (LIGHT, DARK):
        palette = QPalette(bar.palette())
        palette.setColor(QPalette.ColorRole.Window, QColor(theme.window))
        bar.setPalette(palette)
        image = bar.grab().toImage()
        scale = image.width() / bar.width()
        for tone, (x, wide) in zip(tones, bar.spans(), strict=True):
            seen = image.pixelColor(int((x + wide / 2) * scale), int(bar.height() / 2 * scale)).name()
            assert seen == QColor(tone(theme)).name(), f"{'dark' if theme.dark else 'light'}: {tone}"


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_every_segment_colour_stands_out_from_the_backgrounds(theme: Palette) -> None:
    """3:1 against the window's backgrounds (WCAG's contrast for the parts of a picture)."""
    for tone in (system_tone, app_tools_tone, messages_tone, resources_tone, *SERVER_TONES):
        colour = QColor(tone(theme)).name()
        assert min(contrast_ratio(colour, getattr(theme, b)) for b in BACKGROUNDS) >= 3, colour


def test_a_hostile_server_name_is_plain_text_and_elided(qapp: QApplication, qtbot: QtBot) -> None:
    hostile = Ledger(
        "m", (part(Section.SYSTEM, PartKind.CATALOG, 500, HOSTILE), part(Section.SYSTEM, PartKind.GUIDANCE, 10))
    )
    view = shown_bar(qtbot, hostile)
    names = legend_names(view.bar)
    server = next(name for name in names if HOSTILE in name.text())
    shown = QLabel.text(server)
    assert server.textFormat().name == "PlainText"
    assert shown != server.text() and "…" in shown and server.width() <= 220, "elided, not widening the window"
    assert "<img" not in server.toolTip() and "&lt;img" in server.toolTip(), "the whole name, escaped, as its tip"
    assert HOSTILE not in view.bar.bar.accessibleDescription(), "a long name is cut in the description too"
    assert view.bar.width() <= view.width()


@pytest.mark.parametrize(
    "ledger",
    [
        None,
        Ledger("m", ()),
        Ledger("m", (part(Section.SYSTEM, PartKind.GUIDANCE, 0), part(Section.MESSAGES, PartKind.MESSAGE, 0))),
    ],
    ids=["no ledger", "no parts", "zero tokens"],
)
def test_a_ledger_without_tokens_draws_no_bar(qapp: QApplication, qtbot: QtBot, ledger: Ledger | None) -> None:
    view = shown_bar(qtbot, ledger)
    assert not view.bar.isVisible() and view.bar.segments == []
    assert view.bar.bar.spans() == [] and legend_names(view.bar) == []
    assert not view.bar.bar.grab().isNull(), "painting it anyway divides by nothing"


def test_the_bar_follows_a_later_request_and_empties(qapp: QApplication) -> None:
    """Spans on their own: none without tokens or room, the smallest part still seen."""
    bar = PartsBar()
    bar.set_ledger(LEDGER)
    assert len(bar.segments) == len(EXPECTED)
    tiny = Ledger("m", (part(Section.SYSTEM, PartKind.GUIDANCE, 100_000), part(Section.MESSAGES, PartKind.MESSAGE, 1)))
    bar.set_ledger(tiny)
    widths = [wide for _x, wide in spans(bar.segments, 300)]
    assert widths[1] >= 3 and sum(widths) == 300 - GAP
    assert spans(bar.segments, 4) == [], "no room for them: nothing drawn"
    bar.set_ledger(None)
    assert bar.segments == [] and bar.isHidden()

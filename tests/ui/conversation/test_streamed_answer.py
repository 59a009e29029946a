"""A streamed answer is rendered block by block, and looks exactly as the same text rendered at once."""

from __future__ import annotations

import itertools
import random

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QTextCursor
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import TextDelta
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.markdown_blocks import MarkdownBlocks
from desktop_app.ui.conversation.markdown_html import render_markdown
from desktop_app.ui.conversation.message_bubble import AutoHeightBrowser, MessageBubble

ANSWER = (
    '# Review\n\nI read **3 documents** and [the guide](https://example.com/guide "Guide"); '
    "`paged://resource/1` is the newest.\n\n"
    "- **Status:** on track\n- **Owner:** the team\n\n  with a second paragraph\n-\n\n"
    "1. first\n\n   ```bash\n   make rehearse\n   ```\n2. second\n   - nested\n\n"
    "> a quote\n> ```js\n> let a = 1\n> ```\n\n---\n\n#\nSetext heading\n===\n\n"
    '```python\ndef check(catalog: Catalog) -> list[str]:\n    """Stale documents."""\n'
    "    return sorted(x for x in catalog if x.size > 1024)\n```\n"
    "Right after the fence.\n\n| Area | Status |\n|---|---|\n| Billing | on track |\n| Support | late |\n"
    "A paragraph right after the table.\r\n\r\n    indented code\n\n"
    '```json\n{"area": "billing", "blocking": false}\n```\n\nLast words, then a fence left open:\n\n'
    "```python\nprint('still"
)
"""Code split across chunks, lists, a table, blocks Qt folds into the next one, and a fence left open."""

WITH_REFERENCE = "See [the guide].\n\n- a\n- b\n\n[the guide]: https://example.com/guide\n\nMore.\n"


def chunks(text: str, seed: int, longest: int) -> list[str]:
    """`text` cut anywhere, as a model's tokens are."""
    rng = random.Random(seed)
    cuts = [0]
    while cuts[-1] < len(text):
        cuts.append(min(len(text), cuts[-1] + rng.randint(1, longest)))
    return [text[a:b] for a, b in itertools.pairwise(cuts)]


@pytest.mark.parametrize("text", [ANSWER, WITH_REFERENCE])
@pytest.mark.parametrize(("seed", "longest"), [(1, 3), (2, 25)])
def test_finished_blocks_and_the_tail_render_as_the_whole_text(text: str, seed: int, longest: int) -> None:
    blocks = MarkdownBlocks()
    finished: list[str] = []
    code = 0
    shown = ""
    for piece in chunks(text, seed, longest):
        shown += piece
        split = blocks.split(shown)
        whole = render_markdown(shown)
        if split is None:  # a link reference: rendered whole from then on
            assert "]:" in shown
            continue
        for block in split.finished:
            rendered = render_markdown(block, first_code=code)
            code += len(rendered.code_blocks)
            finished.append(rendered.html)
        assert "".join(finished) + render_markdown(split.tail, first_code=code).html == whole.html
    assert blocks.whole == (text == WITH_REFERENCE)


def at_once(text: str, *, dark: bool) -> str:
    """The document a bubble showed before answers streamed block by block: the whole HTML set at once."""
    browser = AutoHeightBrowser()
    browser.setHtml(render_markdown(text, dark=dark).html)
    return browser.document().toHtml()


def dark_palette() -> QPalette:
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    return palette


@pytest.mark.parametrize(("dark", "seed", "longest"), [(False, 3, 12), (True, 4, 40)])
def test_a_streamed_answer_looks_exactly_as_if_rendered_at_once(
    qtbot: QtBot, dark: bool, seed: int, longest: int
) -> None:
    bubble = MessageBubble("assistant")
    qtbot.addWidget(bubble)
    if dark:
        bubble.setPalette(dark_palette())
    for piece in chunks(ANSWER, seed, longest):
        bubble.append(piece)
        bubble.flush()  # every update, not only the throttled ones
        assert bubble.body.document().toHtml() == at_once(bubble.text, dark=dark), repr(bubble.text[-40:])
    # Each code block's Copy link copies its code, whichever update finished it.
    codes = render_markdown(ANSWER).code_blocks
    assert len(codes) == 6
    for index, code in enumerate(codes):
        bubble.body.anchorClicked.emit(QUrl(f"copy:{index}"))
        assert QGuiApplication.clipboard().text() == code


def test_switching_to_dark_mode_mid_answer_renders_it_again_in_dark(qtbot: QtBot) -> None:
    bubble = MessageBubble("assistant")
    qtbot.addWidget(bubble)
    half = len(ANSWER) // 2
    bubble.append(ANSWER[:half])
    bubble.flush()
    bubble.setPalette(dark_palette())
    bubble.append(ANSWER[half:])
    bubble.flush()
    assert bubble.body.document().toHtml() == at_once(ANSWER, dark=True)


def test_an_answer_with_a_link_reference_is_rendered_whole(qtbot: QtBot) -> None:
    bubble = MessageBubble("assistant")
    qtbot.addWidget(bubble)
    for piece in chunks(WITH_REFERENCE, 5, 4):
        bubble.append(piece)
        bubble.flush()
    assert bubble.body.document().toHtml() == at_once(WITH_REFERENCE, dark=False)
    assert 'href="https://example.com/guide"' in bubble.body.document().toHtml()


def test_a_selection_in_the_answer_survives_the_updates_after_it(qtbot: QtBot) -> None:
    bubble = MessageBubble("assistant")
    qtbot.addWidget(bubble)
    bubble.append("First paragraph, finished.\n\nSecond paragraph\n")  # the first one is finished
    bubble.flush()
    cursor = bubble.body.textCursor()
    cursor.setPosition(0)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
    bubble.body.setTextCursor(cursor)
    for piece in ("grows", "\n\n- and a list", "\n- of two\n"):
        bubble.append(piece)
        bubble.flush()
    assert bubble.body.textCursor().selectedText() == "First paragraph, finished."


def test_the_view_follows_a_streamed_answer_unless_the_user_scrolled_up(qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    bar = view.verticalScrollBar()
    for index in range(30):
        view.apply(TextDelta(f"Paragraph {index} of a long answer that needs the view to scroll.\n\n"))
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    bar.setValue(0)  # the user scrolls up to read
    for index in range(30, 40):
        view.apply(TextDelta(f"Paragraph {index}.\n\n"))
    maximum = bar.maximum()
    qtbot.waitUntil(lambda: bar.maximum() > maximum)
    assert bar.value() == 0

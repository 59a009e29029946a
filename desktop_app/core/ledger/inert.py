"""Markdown that no viewer turns into live HTML or into a link off the web.

An exported transcript is opened in whatever Markdown viewer the user has, and many render raw
HTML and follow any link. What a server wrote (a URI, a tool's name, a reason) is written as plain
text; what the model or the user wrote is Markdown meant to be read rendered, so its Markdown is
kept, but every `<` is escaped (a tag is shown, not run), links whose target is not http(s) or
mailto are written as text, and images become links (a viewer fetches nothing to show a transcript,
as in the window). The result is checked with a CommonMark parser that passes HTML and any link
through; text that would still carry either is shown as its source in a code block instead.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_INLINE_SYNTAX: Final = re.compile(r"([\\`*_\[\]<>&!~|])")
_TICKS: Final = re.compile(r"`+")
_CODE_SPAN: Final = re.compile(r"(?<![\\`])(`+)(?!`).*?(?<!`)\1(?!`)")
_UNESCAPED: Final = r"(?<!\\)((?:\\\\)*)"
"""Before a mark: an even run of backslashes (none, or escaped backslashes), so the mark itself is live."""
_WEB_TARGET: Final = r"[ \t]*(?:https?://|mailto:)"
_TAG_START: Final = re.compile(_UNESCAPED + r"<")
_IMAGE_START: Final = re.compile(_UNESCAPED + r"!\[")
_LINK_END: Final = re.compile(_UNESCAPED + r"\](?=\()(?!\(" + _WEB_TARGET + ")", re.IGNORECASE)
_DEFINITION_END: Final = re.compile(_UNESCAPED + r"\](?=:)(?!:" + _WEB_TARGET + ")", re.IGNORECASE)
_WEB_LINK: Final = re.compile(r"(?:https?://|mailto:)", re.IGNORECASE)


def inline(text: str) -> str:
    """`text` as plain words inside a line of Markdown: line breaks folded, every mark that could start
    HTML, a link, code or emphasis escaped."""
    return _INLINE_SYNTAX.sub(r"\\\1", " ".join(text.split()))


def code(text: str) -> str:
    """`text` as an inline code span no backtick run inside can close (nothing in a code span is markup)."""
    text = " ".join(text.split())
    ticks = "`" * (max((len(run) for run in _TICKS.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(text: str, info: str = "") -> str:
    """`text` in a code block no backtick run inside can close."""
    longest = max((len(run) for run in _TICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def quoted(text: str) -> str:
    """`text` as a block quote, every line of it."""
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def quoted_markdown(text: str) -> str:
    """Markdown someone wrote, as a block quote that renders as theirs but carries no HTML nor script link;
    shown as its source when it cannot be made so."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    kept = _code_lines(text)
    block = quoted("\n".join(line if n in kept else _tame(line) for n, line in enumerate(lines)))
    if is_inert(block):
        return block
    return "*(Shown as its source: it holds markup a viewer could run.)*\n\n" + fenced(text, "markdown")


def is_inert(markdown: str) -> bool:
    """Whether `markdown`, rendered with raw HTML on and every link followed, has no HTML and no link
    or image to anything but a web page or a mail address."""
    for token in _every(_viewer().parse(markdown)):
        if token.type in ("html_inline", "html_block", "image"):
            return False
        if token.type == "link_open" and not _WEB_LINK.match(str(token.attrGet("href") or "")):
            return False
    return True


def _tame(line: str) -> str:
    """A line of prose with its tags shown as text, its script links as text and its images as links;
    code spans inside it are left as written."""
    out: list[str] = []
    start = 0
    for span in _CODE_SPAN.finditer(line):
        out += [_tame_prose(line[start : span.start()]), span.group(0)]
        start = span.end()
    out.append(_tame_prose(line[start:]))
    return "".join(out)


def _tame_prose(text: str) -> str:
    """Each live `<`, image and link end to a target off the web, escaped (an escaped one is left)."""
    text = _TAG_START.sub(r"\1\\<", text)
    text = _IMAGE_START.sub(r"\1!\\[", text)
    text = _LINK_END.sub(r"\1\\]", text)
    return _DEFINITION_END.sub(r"\1\\]", text)


def _code_lines(text: str) -> set[int]:
    """Lines (from 0) inside code blocks, where nothing is markup and an escape would show."""
    lines: set[int] = set()
    for token in _viewer().parse(text):
        if token.type in ("fence", "code_block") and token.map is not None:
            lines.update(range(*token.map))
    return lines


def _every(tokens: list[Token]) -> list[Token]:
    found: list[Token] = []
    for token in tokens:
        found.append(token)
        found += _every(token.children or [])
    return found


@cache
def _viewer() -> MarkdownIt:
    """CommonMark as the least careful viewer renders it: raw HTML on, every link followed."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True})
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    return parser

"""Markdown to the HTML subset Qt's rich text understands, with highlighted, copyable code blocks.

Qt's QTextBrowser ignores stylesheets classes from Pygments, so colours are inlined; each code
block gets a `copy:N` link (the kit's copy icon and the word) whose target text is kept alongside the
HTML. markdown-it and Pygments
are imported on first use (about a second of start-up on a busy machine otherwise; the model
library's warm-up imports them in a worker thread before the first answer).

A message repeats what servers wrote, so it links only to web pages and mail addresses (the
window asks before opening one); any other link, however its scheme is spelled, stays text,
and nobody can forge a `copy:` link. An image becomes a link to it: nothing is fetched or read
to show a message (the Copy link's icon is the app's own, drawn by the message's view). Raw HTML is
escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

from desktop_app.qt_kit.action_icon import MESSAGE_ICON, image_address
from desktop_app.qt_kit.tokens import DARK, LIGHT, SPACE, Palette

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer


@dataclass(frozen=True)
class RenderedMarkdown:
    html: str
    code_blocks: tuple[str, ...]


_WEB_LINK: Final = re.compile(r"(?:https?|mailto):", re.IGNORECASE)


def is_web_link(url: str) -> bool:
    """Whether a link (as markdown-it normalised it: entities decoded, escaped) may be a link at all."""
    return _WEB_LINK.match(url) is not None


@cache
def markdown_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # "js-default" escapes raw HTML: a model's output can never inject markup or links we did not make.
    parser = MarkdownIt("js-default", {"linkify": False, "typographer": False, "html": False})
    parser.validateLink = is_web_link  # type: ignore[method-assign]
    parser.add_render_rule("image", _image_as_link)
    return parser


def _image_as_link(self: object, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """An image is shown as a link to it (its alt text, marked as an image): it is opened only if asked."""
    token = tokens[index]
    alt = "".join(child.content for child in token.children or () if child.type in ("text", "code_inline"))
    source = html.escape(str(token.attrGet("src") or ""))
    return f'<a href="{source}">image: {html.escape(alt or "untitled")}</a>'


CODE_STYLES: Final = {False: "xcode", True: "native"}
"""Pygments' styles for code in the light and dark themes: every colour they give the common tokens reads
at 4.5:1 on the raised surface a code block sits on."""


@cache
def _formatter(dark: bool) -> HtmlFormatter:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(noclasses=True, nowrap=True, style=CODE_STYLES[dark])


@cache
def _lexer(language: str) -> Lexer | None:
    """The lexer for a fence's language, looked up once; unknown or half-streamed names give None."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language)
    except ClassNotFound:
        return None


def _highlight(code: str, language: str, dark: bool) -> str:
    # No guessing for unlabelled code: guess_lexer imports hundreds of lexers mid-stream.
    lexer = _lexer(language.lower()) if language else None
    if lexer is None:
        return html.escape(code)
    from pygments import highlight

    return str(highlight(code, lexer, _formatter(dark)))


PRELOADED_LANGUAGES: Final = ("python", "json", "bash", "javascript", "typescript", "yaml", "markdown", "sql")


def preload_highlighting() -> None:
    """Import the common lexers and the formatter ahead of time (call it from a worker thread)."""
    from pygments import highlight

    markdown_parser()
    for language in PRELOADED_LANGUAGES:
        if (lexer := _lexer(language)) is not None:
            highlight("x = 1", lexer, _formatter(False))


_ALIGN: Final = re.compile(r"text-align:(left|right|center)")


def _dress(tokens: Sequence[Token], p: Palette) -> None:
    """Qt's rich text knows attributes, not stylesheets: tables get a grid, padding and a header row on
    the raised surface; links, inline code and quotes their colours from the tokens."""
    for token in tokens:
        if token.type == "table_open":
            token.attrs.update(
                {"border": "1", "cellspacing": "0", "cellpadding": str(SPACE.m - 2)}
                | {"style": f"border-collapse:collapse; border-color:{p.border}; border-style:solid; margin:4px 0;"}
            )
        elif token.type in ("th_open", "td_open"):
            if (found := _ALIGN.search(str(token.attrs.pop("style", "")))) is not None:
                token.attrs["align"] = found.group(1)
            if token.type == "th_open":
                token.attrs["bgcolor"] = p.raised
        elif token.type == "blockquote_open":
            token.attrs["style"] = f"color:{p.muted}; font-style:italic;"
        elif token.type == "link_open":
            token.attrs["style"] = f"color:{p.accent};"
        elif token.type == "code_inline":
            token.attrs["style"] = f"background-color:{p.raised}; font-family:monospace;"
        if token.children:
            _dress(token.children, p)


def _copy_link(index: int, dark: bool, p: Palette) -> str:
    """A code block's Copy link: the copy icon, then the word (what a screen reader says, and a wider target)."""
    icon = image_address("copy", "accent", dark=dark)
    return (
        f'<a href="copy:{index}" style="color:{p.accent}; text-decoration:none;">'
        f'<img src="{icon}" width="{MESSAGE_ICON}" height="{MESSAGE_ICON}" style="vertical-align:middle;">'
        "&nbsp;Copy</a>"
    )


def render_markdown(text: str, *, dark: bool = False, first_code: int = 0) -> RenderedMarkdown:
    """HTML for one message; fenced code is highlighted and numbered for its Copy link, from `first_code`.

    A part of a message (a block of a streamed answer) numbers its code after the parts above it.
    """
    parser = markdown_parser()
    tokens = parser.parse(text)
    blocks: list[str] = []
    p = DARK if dark else LIGHT
    _dress(tokens, p)
    for token in tokens:
        if token.type not in ("fence", "code_block"):
            continue
        code = token.content
        language = next(iter((token.info or "").split()), "") if token.type == "fence" else ""
        index = first_code + len(blocks)
        blocks.append(code)
        label = html.escape(language or "code")
        body = _highlight(code.rstrip("\n"), language, dark)
        token.type = "html_block"
        token.content = (
            f'<table width="100%" cellspacing="0" cellpadding="{SPACE.m}" border="0" bgcolor="{p.raised}"'
            f' style="margin:6px 0;">'
            f'<tr><td style="color:{p.muted}; font-size:small;">{label}</td>'
            f'<td align="right" style="font-size:small;">{_copy_link(index, dark, p)}'
            "</td></tr>"
            # pre-wrap: a long line wraps inside the message instead of running past its edge, out of sight
            # with the Copy link (the message does not scroll sideways).
            f'<tr><td colspan="2"><pre style="margin:0; font-family:monospace; white-space:pre-wrap;">{body}</pre>'
            "</td></tr></table>"
        )
    rendered = parser.renderer.render(tokens, parser.options, {})
    return RenderedMarkdown(rendered, tuple(blocks))

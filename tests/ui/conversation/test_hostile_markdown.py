"""A chat message repeats what servers wrote: its Markdown may link, and show, only what is safe.

Images become links the user can choose to open (a picture is never read, from disk or anywhere);
links other than http(s) and mailto stay text, however the scheme is spelled; raw HTML is text.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QPixmap, QTextDocument
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.events import ToolBinary, ToolCallStarted, ToolResult
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.markdown_html import render_markdown
from desktop_app.ui.conversation.message_bubble import MessageBubble
from tests.servers.hostile_content_server import PLAIN_SVG, drawing_svg


@pytest.fixture
def secret_image(tmp_path: Path) -> Path:
    path = tmp_path / "secret.png"
    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(path))
    return path


def hrefs(html: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', html)


def shows_secret(document: QTextDocument, url: str) -> bool:
    """Whether the document holds the red picture for `url` once laid out (Qt caches what it read)."""
    document.documentLayout().documentSize()
    found = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(url))
    if isinstance(found, QPixmap):
        found = found.toImage()
    return isinstance(found, QImage) and not found.isNull() and found.pixelColor(5, 5) == QColor("red")


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "&#106;avascript:alert(1)",
        "java%0ascript:alert(1)",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "data:text/html;base64,PHNjcmlwdD4=",
        "smb://attacker.example/share",
        "copy:0",  # the app's own Copy link, forged
        "/etc/passwd",
    ],
)
def test_a_link_that_is_not_web_or_mail_stays_text(link: str) -> None:
    rendered = render_markdown(f"Click [here]({link}) or <{link}>.\n\n```\ncode\n```\n")
    assert hrefs(rendered.html) == ["copy:0"], rendered.html  # only the code block's own Copy link


def test_web_and_mail_links_stay_links() -> None:
    rendered = render_markdown("[a](https://example.org/a) [b](HTTP://example.org/b) [c](mailto:me@example.org)")
    assert hrefs(rendered.html) == ["https://example.org/a", "HTTP://example.org/b", "mailto:me@example.org"]


def test_an_image_is_a_link_to_open_and_reads_nothing(qtbot: QtBot, secret_image: Path) -> None:
    picture = base64.b64encode(secret_image.read_bytes()).decode()
    text = (
        f"![chart]({secret_image}) ![again](file://{secret_image}) ![inline](data:image/png;base64,{picture})\n\n"
        "![beacon](https://127.0.0.1:9/pixel.png?viewed=1) <img src=x onerror=alert(1)>\n"
    )
    html = render_markdown(text).html
    assert "<img" not in html
    assert hrefs(html) == ["https://127.0.0.1:9/pixel.png?viewed=1"]  # offered as a link: the user asks for it
    whole = MessageBubble("assistant", text)
    streamed = MessageBubble("assistant")
    for bubble in (whole, streamed):
        qtbot.addWidget(bubble)
        bubble.resize(500, 300)
        bubble.show()
    for piece in text.split(" "):
        streamed.append(piece + " ")
    streamed.flush()
    for bubble in (whole, streamed):
        shown = bubble.body.toPlainText()
        assert "chart" in shown and "beacon" in shown and "<img src=x" in shown
        for url in (str(secret_image), f"file://{secret_image}", f"data:image/png;base64,{picture}"):
            assert not shows_secret(bubble.body.document(), url), url


def test_a_tool_cards_thumbnail_is_not_drawn_from_an_svg_that_reaches_out(qtbot: QtBot, secret_image: Path) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.apply(ToolCallStarted("c1", "fx__draw", {}, "fx", "draw"))
    hostile = ToolBinary("image/svg+xml", drawing_svg(secret_image), "x://drawing.svg")
    sniffed = ToolBinary("image/png", drawing_svg(secret_image), "x://drawing.png")
    plain = ToolBinary("image/svg+xml", PLAIN_SVG, "x://plain.svg")
    view.apply(ToolResult("c1", "fx__draw", "three drawings", binaries=(hostile, sniffed, plain)))
    card = view.card("c1")
    assert card is not None
    thumbnails = [label.pixmap() for label in card.result_box.findChildren(QLabel) if not label.pixmap().isNull()]
    assert [(pixmap.width(), pixmap.height()) for pixmap in thumbnails] == [(40, 30)]  # only the plain one
    assert all(pixmap.toImage().pixelColor(5, 5) != QColor("red") for pixmap in thumbnails)

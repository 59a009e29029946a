"""Text resources: monospace with syntax colours, and Markdown rendered with a source toggle.

A server writes the Markdown: its raw HTML is shown as the text it is (a `<style>` could hide the
rest of the document from the user while the model reads it), and nothing it references is read.
"""

from __future__ import annotations

import json
from typing import Any, Final

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QFontDatabase, QTextCursor, QTextDocument, QTextOption
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QPlainTextEdit,
    QStackedWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.qt_kit.inert_images import inert_resource
from desktop_app.qt_kit.web_links import WEB_SCHEMES
from resources_ui.viewers.highlighting import MAX_HIGHLIGHT_CHARS, PygmentsHighlighter, lexer_for


def display_text(text: str, mime: str | None) -> str:
    """The text as shown: line ends normalised; minified JSON pretty-printed so it can be read."""
    text = text.replace("\r\n", "\n")
    if mime and "json" in mime and "\n" not in text.strip() and len(text) > 80:
        try:
            return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        except ValueError:
            return text
    return text


class TextViewer(QPlainTextEdit):
    """Read-only monospace text, coloured by Pygments when the type or file name says code."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("textViewer")
        self.setReadOnly(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setWordWrapMode(QTextOption.WrapMode.NoWrap)
        self._highlighter: PygmentsHighlighter | None = None

    @property
    def highlighted(self) -> bool:
        return self._highlighter is not None

    def show_text(self, text: str, mime: str | None, uri: str = "") -> None:
        text = display_text(text, mime)
        if self._highlighter is not None:
            self._highlighter.setDocument(None)
            self._highlighter.deleteLater()
            self._highlighter = None
        self.setPlainText(text)
        lexer = lexer_for(mime, uri) if len(text) <= MAX_HIGHLIGHT_CHARS else None
        if lexer is not None:
            self._highlighter = PygmentsHighlighter(self.document(), text, lexer)


_MARKDOWN: Final = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML


class _MarkdownBrowser(QTextBrowser):
    """Never reads what a document references: images show a placeholder, links stay inert until clicked."""

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        return inert_resource(kind)


class MarkdownViewer(QWidget):
    """Rendered Markdown, with a toggle to the highlighted source."""

    link_activated = Signal(str)
    """A non-web link was clicked (for example another resource's URI), resolved against the document's."""
    web_link_requested = Signal(str)
    """An http(s) or mailto link was clicked: the window asks before it opens a browser."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("markdownViewer")
        self.rendered = _MarkdownBrowser()
        self.rendered.setOpenLinks(False)
        self.rendered.anchorClicked.connect(self._on_link)
        self._base = QUrl()
        self.source = TextViewer()
        self._stack = QStackedWidget()
        self._stack.addWidget(self.rendered)
        self._stack.addWidget(self.source)
        self.rendered_button = QToolButton()
        self.source_button = QToolButton()
        group = QButtonGroup(self)
        group.setExclusive(True)
        for button, text in ((self.rendered_button, "Rendered"), (self.source_button, "Source")):
            button.setText(text)
            button.setCheckable(True)
            button.setAutoRaise(True)
            group.addButton(button)
        self.rendered_button.setChecked(True)
        self.rendered_button.toggled.connect(self._switch)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addStretch(1)
        bar.addWidget(self.rendered_button)
        bar.addWidget(self.source_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self._stack)

    @property
    def showing_source(self) -> bool:
        return self._stack.currentWidget() is self.source

    def show_markdown(self, text: str, mime: str | None, uri: str = "") -> None:
        """Show `text`; its relative links are resolved against `uri`, the resource's own."""
        self._base = QUrl(uri)
        self.rendered.document().setMarkdown(text, _MARKDOWN)
        # The cursor is left at the end: shown for the first time (the viewer opens with it), the
        # browser would scroll to keep it in sight. A document is read from its start.
        self.rendered.moveCursor(QTextCursor.MoveOperation.Start)
        self.source.show_text(text, mime or "text/markdown", uri)

    def set_source_visible(self, visible: bool) -> None:
        (self.source_button if visible else self.rendered_button).setChecked(True)

    def _switch(self, rendered: bool) -> None:
        self._stack.setCurrentWidget(self.rendered if rendered else self.source)

    def _on_link(self, url: QUrl) -> None:
        if not url.scheme() and not url.path() and url.hasFragment():
            self.rendered.scrollToAnchor(url.fragment())  # a heading of this document
            return
        target = self._base.resolved(url) if url.isRelative() else url
        if target.scheme() in WEB_SCHEMES:
            self.web_link_requested.emit(target.toString())
        elif target.scheme():
            self.link_activated.emit(target.toString())

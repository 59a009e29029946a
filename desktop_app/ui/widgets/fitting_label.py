"""A one-line label with several wordings, longest first: it shows the longest that fits its width.

The status bar uses it so a narrow window says less instead of cutting a sentence in half: the
layout may shrink it down to its shortest wording, and the whole wording stays its `text()`.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

_ELIDED_MIN_CHARS = 12
"""Room for this many average characters at least, when the shortest wording may be elided."""


class FittingLabel(QLabel):
    """Shows the longest of its wordings that fits; `clickable` makes it a link that emits `clicked`."""

    clicked = Signal()  # a click (or Space/Enter when focused) on a clickable label

    def __init__(self, *wordings: str, elide_last: bool = False, parent: QWidget | None = None) -> None:
        """`elide_last`: the shortest wording may itself be cut in the middle (a model's name can be
        any length); otherwise the label never gets narrower than it."""
        super().__init__(parent)
        self._wordings: tuple[str, ...] = wordings or ("",)
        self._elide_last = elide_last
        self._clickable = False
        self.setTextFormat(Qt.TextFormat.PlainText)  # the words may be a server's or a model's: never markup
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._fit()

    # -- the words -----------------------------------------------------------------------------

    def set_wordings(self, *wordings: str) -> None:
        """The same thing said from the longest to the shortest way."""
        self._wordings = wordings or ("",)
        self.updateGeometry()
        self._fit()

    def text(self) -> str:
        """The whole (longest) wording, whatever fits on screen."""
        return self._wordings[0]

    def shown(self) -> str:
        """What is on screen now."""
        return super().text()

    def fits(self) -> bool:
        """Whether what is shown is whole within the label's width."""
        return self._width(self.shown()) <= self.width()

    def _width(self, text: str) -> int:
        margins = self.contentsMargins()
        return self.fontMetrics().horizontalAdvance(text) + margins.left() + margins.right() + 2 * self.margin()

    def _fit(self) -> None:
        room = self.width()
        shown = next((wording for wording in self._wordings if self._width(wording) <= room), None)
        if shown is None:
            shown = self._wordings[-1]
            if self._elide_last:
                spare = room - self._width("")
                shown = self.fontMetrics().elidedText(shown, Qt.TextElideMode.ElideMiddle, max(spare, 0))
        if shown != super().text():
            super().setText(shown)

    # -- sizes ---------------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        return QSize(self._width(self._wordings[0]), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        least = self._width(self._wordings[-1])
        if self._elide_last:
            least = min(least, self._width("") + self.fontMetrics().averageCharWidth() * _ELIDED_MIN_CHARS)
        return QSize(least, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    # -- as a link -----------------------------------------------------------------------------

    def set_clickable(self, clickable: bool) -> None:
        """Underlined with a pointing hand, reachable with Tab, and `clicked` on a click."""
        self._clickable = clickable
        font = self.font()
        font.setUnderline(clickable)
        self.setFont(font)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus if clickable else Qt.FocusPolicy.NoFocus)
        if clickable:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            self.unsetCursor()
        self.updateGeometry()
        self._fit()

    @property
    def clickable(self) -> bool:
        return self._clickable

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        inside = self.rect().contains(event.position().toPoint())
        if self._clickable and event.button() == Qt.MouseButton.LeftButton and inside:
            self.clicked.emit()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._clickable and event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.clicked.emit()
            return
        super().keyPressEvent(event)

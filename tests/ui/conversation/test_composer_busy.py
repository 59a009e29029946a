"""Send and Stop trade places without the composer changing height, so the conversation above it stays put."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from desktop_app.ui.conversation.composer import Composer
from tests.window_kit import on_screen


class BothShown(QObject):
    """Counts the moments a button is shown while the other one is still there."""

    def __init__(self, composer: Composer) -> None:
        super().__init__()
        self.composer = composer
        self.moments = 0
        for button in (composer.send_button, composer.stop_button):
            button.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QPushButton):
            composer = self.composer
            other = composer.stop_button if watched is composer.send_button else composer.send_button
            self.moments += other.isVisibleTo(composer)
        return False


def test_send_and_stop_are_never_both_in_the_row(qtbot: QtBot) -> None:
    composer = on_screen(qtbot, Composer(), 800, 80)
    QApplication.processEvents()  # polished in whatever theme the app has: its height at rest
    seen = BothShown(composer)
    height = composer.sizeHint().height()
    for busy in (True, False, True, False):
        composer.set_busy(busy)
        assert composer.stop_button.isVisibleTo(composer) is busy
        assert composer.send_button.isVisibleTo(composer) is not busy
        assert composer.sizeHint().height() == height, "the conversation above would be laid out again"
    assert seen.moments == 0, "both buttons stacked for a moment: a row taller, and the chat's column laid out twice"

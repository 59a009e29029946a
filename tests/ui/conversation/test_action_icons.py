"""The conversation's actions carry the action icons: a message's actions at 14 px beside their words (still
pressed with the keyboard), the composer's Send and Stop, and the icons follow a change of theme."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication, QHBoxLayout, QPushButton, QToolButton, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.qt_kit.action_icon import BUTTON_ICON, MESSAGE_ICON, TEXT_GAP
from desktop_app.qt_kit.theme import restyle, tokens
from desktop_app.qt_kit.tokens import DARK, LIGHT
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView
from tests.window_kit import on_screen


def shown_view(qtbot: QtBot) -> ConversationView:
    return on_screen(qtbot, ConversationView(), 900, 700)


def ink(widget: QWidget, area: QRect) -> QColor:
    """The colour in `area` of `widget` as drawn that stands out most from the area's corner (its
    background): the strokes of the icon drawn there."""
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    ground = image.pixelColor(area.topLeft())

    def distance(colour: QColor) -> int:
        return sum(abs(a - b) for a, b in zip(colour.getRgb()[:3], ground.getRgb()[:3], strict=True))

    return max(
        (
            image.pixelColor(x, y)
            for y in range(area.top(), area.bottom() + 1)
            for x in range(area.left(), area.right() + 1)
        ),
        key=distance,
    )


def icon_area(button: QPushButton) -> QRect:
    """Where a button's icon is drawn: the left of its contents (the style puts the icon before the text)."""
    side = button.iconSize().height()
    text = button.fontMetrics().horizontalAdvance(button.text())
    left = (button.width() - button.iconSize().width() - text) // 2
    return QRect(QPoint(max(left - 2, 0), (button.height() - side) // 2), QSize(side + 4, side))


def test_a_messages_actions_carry_their_icons_beside_their_words(qtbot: QtBot) -> None:
    view = shown_view(qtbot)
    mine = view.add_message("user", "A question.")
    answer = view.add_message("assistant", "The answer.")
    mine.set_actions([("Edit", "Change this message", lambda: None)])
    answer.set_actions([("Regenerate", "Ask for another answer", lambda: None)])
    earlier = view.add_message("assistant", "An earlier answer.")
    earlier.set_actions([("Retry", "Send again", lambda: None)])
    buttons = [mine.action_buttons["Edit"], answer.action_buttons["Regenerate"], earlier.action_buttons["Retry"]]
    buttons += [b.copy_button for b in (mine, answer) if b.copy_button is not None]
    assert [b.icon().name() for b in buttons] == ["pencil", "refresh-cw", "rotate-cw", "copy", "copy"]
    for button in buttons:
        assert button.text() and button.accessibleName() == button.text(), "the words stay: the icon is beside them"
        assert button.iconSize() == QSize(MESSAGE_ICON + TEXT_GAP, MESSAGE_ICON)


def test_the_ledgers_link_joins_the_actions_with_its_icon(qtbot: QtBot) -> None:
    view = shown_view(qtbot)
    answer = view.add_message("assistant", "The answer.")
    row = QWidget(answer)
    link = QToolButton(row)
    link.setText("What the model got")
    QHBoxLayout(row).addWidget(link)
    layout = answer.layout()
    assert layout is not None
    layout.addWidget(row)
    row.show()
    qtbot.waitUntil(lambda: link.parentWidget() is not row)
    assert link.icon().name() == "receipt-text"
    assert link.toolButtonStyle() is Qt.ToolButtonStyle.ToolButtonTextBesideIcon, "its words stay beside the icon"


def test_a_message_action_with_its_icon_is_still_pressed_with_the_keyboard(qtbot: QtBot) -> None:
    view = shown_view(qtbot)
    answer = view.add_message("assistant", "Copied by keyboard.")
    copy = answer.copy_button
    assert copy is not None and not copy.icon().isNull()
    QGuiApplication.clipboard().clear()
    view.activateWindow()
    copy.setFocus()
    qtbot.waitUntil(lambda: QGuiApplication.focusObject() is copy)
    qtbot.keyClick(copy, Qt.Key.Key_Space)
    assert QGuiApplication.clipboard().text() == "Copied by keyboard."


def test_the_composers_send_and_stop_carry_icons_drawn_in_the_themes_colours(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(700, 120)
    composer.show()
    qtbot.waitExposed(composer)
    send, stop = composer.send_button, composer.stop_button
    assert (send.icon().name(), stop.icon().name()) == ("send-horizontal", "square")
    assert send.text() == "Send" and stop.text() == "Stop"
    assert send.iconSize() == QSize(BUTTON_ICON + TEXT_GAP, BUTTON_ICON)
    light = tokens()
    assert ink(send, icon_area(send)).name() == light.on_accent, "Send's icon is the colour of its label"

    before = QGuiApplication.palette()
    other = DARK if light is LIGHT else LIGHT
    palette = QGuiApplication.palette()
    palette.setColor(QPalette.ColorRole.Window, other.window)
    QGuiApplication.setPalette(palette)
    try:
        restyle()  # as the window does on a change of theme: Send's fill follows, and so does its icon
        QApplication.processEvents()
        assert ink(send, icon_area(send)).name() == other.on_accent
    finally:
        QGuiApplication.setPalette(before)
        restyle()
    assert ink(send, icon_area(send)).name() == light.on_accent

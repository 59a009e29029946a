"""How an answer reads: a centred column, the user's messages apart from the answers, Markdown tables
with a grid and a header, code blocks with a Copy that copies exactly the code, and message actions
that are drawn on hover or focus yet always in the keyboard's reach."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QEnterEvent, QGuiApplication, QImage, QPalette, QTextCursor, QTextDocument
from PySide6.QtWidgets import QApplication, QGraphicsOpacityEffect, QLabel, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.qt_kit.action_icon import MESSAGE_ICON, address_image, image_address
from desktop_app.qt_kit.theme import muted, restyle, themed, tokens
from desktop_app.qt_kit.tokens import DARK, LIGHT, READABLE_WIDTH, SPACE, contrast_ratio
from desktop_app.ui.conversation.bubble_look import ACTION_NAME, USER_WIDTH
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.markdown_html import CODE_STYLES, render_markdown
from desktop_app.ui.conversation.message_bubble import MessageBubble

TABLE = "| item | qty |\n|------|----:|\n| milk | 1 |\n| eggs | 12 |\n"
CODE = "items = {'milk': 1}\nprint(sum(items.values()))\n"


def shown_view(qtbot: QtBot, width: int = 1100) -> ConversationView:
    view = ConversationView()
    qtbot.addWidget(view)
    view.resize(width, 700)
    view.show()
    qtbot.waitExposed(view)
    return view


def actions_drawn(bubble: MessageBubble) -> bool:
    row = bubble.copy_button.parentWidget() if bubble.copy_button is not None else None
    effect = row.graphicsEffect() if row is not None else None
    return isinstance(effect, QGraphicsOpacityEffect) and effect.opacity() == 1.0


def test_a_table_has_a_header_row_a_grid_and_padding(qtbot: QtBot) -> None:
    html = render_markdown(TABLE).html
    assert "<th" in html and 'border="1"' in html and 'cellpadding="6"' in html
    assert f'bgcolor="{LIGHT.raised}"' in html, "the header row sits on the raised surface"
    assert 'align="right"' in html and "style=" not in html.split("<tbody>")[1], "alignment as Qt reads it"
    bubble = MessageBubble("assistant", TABLE)
    qtbot.addWidget(bubble)
    built = bubble.body.document().toHtml()  # the document Qt made of it, written back out
    table = built[built.index("<table") : built.index("</table>")]
    assert 'border="1"' in table and "border-collapse:collapse" in table and 'cellpadding="6"' in table
    header, body = table.split("</thead>")
    assert "<thead>" in header and header.count(f'bgcolor="{LIGHT.raised}"') == 2 and "font-weight:700" in header
    assert ">item<" in header and ">milk<" in body and "bgcolor" not in body


def test_the_dark_theme_draws_tables_and_code_from_its_own_tokens() -> None:
    html = render_markdown(TABLE + "\n```python\nx = 1\n```\n", dark=True).html
    assert DARK.raised in html and DARK.border in html and LIGHT.raised not in html


def test_highlighted_code_reads_on_the_raised_surface_in_both_themes() -> None:
    from pygments.styles import get_style_by_name
    from pygments.token import Comment, Keyword, Name, Number, Operator, String

    kinds = (Comment, Keyword, Keyword.Constant, Name.Function, Name.Builtin, Name.Class, String, Number, Operator)
    for dark, palette in ((False, LIGHT), (True, DARK)):
        style = get_style_by_name(CODE_STYLES[dark])
        colours = {c for kind in kinds if (c := style.style_for_token(kind)["color"])}
        assert colours and all(contrast_ratio(f"#{c}", palette.raised) >= 4.5 for c in colours)


def test_a_code_blocks_copy_puts_exactly_the_code_on_the_clipboard(qtbot: QtBot) -> None:
    view = shown_view(qtbot, 700)
    bubble = view.add_message("assistant", f"Here:\n\n```python\n{CODE}```\n\nand `inline` code.")
    qtbot.waitUntil(lambda: bubble.body.height() > 60)
    found = bubble.body.document().find("Copy")
    assert not found.isNull()
    inside = QTextCursor(found)
    inside.setPosition(found.selectionStart() + 1)
    at = bubble.body.cursorRect(inside).center() + QPoint(2, 0)
    assert bubble.body.anchorAt(at) == "copy:0"
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(bubble.body.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert QGuiApplication.clipboard().text() == CODE


def test_a_code_blocks_copy_link_shows_the_copy_icon_sharp_and_in_the_themes_accent(qtbot: QtBot) -> None:
    for dark, palette in ((False, LIGHT), (True, DARK)):
        html = render_markdown("```python\nx = 1\n```\n", dark=dark).html
        address = image_address("copy", "accent", dark=dark)
        assert f'<img src="{address}"' in html and "Copy</a>" in html
        for scale in (1.0, 2.0):
            image = address_image(address, MESSAGE_ICON, scale)
            assert image is not None and image.width() == round(MESSAGE_ICON * scale)
            drawn = {image.pixelColor(x, y).name() for x in range(image.width()) for y in range(image.height())}
            assert palette.accent in drawn, "drawn in the accent, at the screen's own pixels"
    for forged in ("action-icon:../../etc/passwd/accent/light", "action-icon:copy/secret/light", "file:///etc/passwd"):
        assert address_image(forged, MESSAGE_ICON, 1.0) is None
    view = shown_view(qtbot, 700)
    bubble = view.add_message("assistant", f"```python\n{CODE}```")
    qtbot.waitUntil(lambda: bubble.body.height() > 40)
    loaded = bubble.body.document().resource(
        QTextDocument.ResourceType.ImageResource.value, QUrl(image_address("copy", "accent", dark=False))
    )
    assert isinstance(loaded, QImage) and loaded.width() == round(MESSAGE_ICON * bubble.body.devicePixelRatioF())


def test_the_column_is_readable_and_centred_and_the_user_writes_on_the_right(qtbot: QtBot) -> None:
    view = shown_view(qtbot, 1400)
    mine = view.add_user_message("A short question?")
    answer = view.add_message("assistant", "A long answer. " * 60)
    qtbot.waitUntil(lambda: mine.isVisible() and answer.x() > SPACE.xl)  # laid out in the wide window
    inner = answer.parentWidget()
    assert inner is not None
    left, right = answer.x(), inner.width() - answer.geometry().right()
    assert answer.width() <= READABLE_WIDTH and abs(left - right) <= 2, "centred, at a comfortable width"
    assert mine.geometry().right() == answer.geometry().right(), "the user's message at the column's right"
    assert mine.width() < answer.width() // 2 and mine.width() <= USER_WIDTH, "as wide as its text"
    assert LIGHT.raised in mine.styleSheet() and LIGHT.raised not in answer.styleSheet().split("QLabel")[0]
    view.resize(500, 700)
    qtbot.waitUntil(lambda: answer.width() > 400)
    assert answer.x() < 40, "a narrow window gives the text all its width"


def test_message_actions_are_drawn_on_hover_or_focus_and_reached_by_tab(qtbot: QtBot) -> None:
    view = shown_view(qtbot, 900)
    answer = view.add_message("assistant", "The answer.")
    pressed: list[str] = []
    answer.set_actions([("Regenerate", "Ask for another answer", lambda: pressed.append("again"))])
    regenerate, copy = answer.action_buttons["Regenerate"], answer.copy_button
    assert copy is not None
    qtbot.waitUntil(lambda: regenerate.isVisible() and copy.isVisible())  # in the tab order, not removed
    view.activateWindow()
    view.setFocus()  # outside the message: neither hovered nor focused, its actions are not drawn
    qtbot.waitUntil(lambda: QGuiApplication.focusObject() is view)
    assert not actions_drawn(answer)
    assert [b.accessibleName() for b in (regenerate, copy)] == ["Regenerate", "Copy"]
    assert all(b.objectName() == ACTION_NAME for b in answer.findChildren(QPushButton))

    for _ in range(4):  # the message's text, then its actions
        focus = QGuiApplication.focusObject()
        assert isinstance(focus, QWidget)
        qtbot.keyClick(focus, Qt.Key.Key_Tab)
        if QGuiApplication.focusObject() in (regenerate, copy):
            break
    assert QGuiApplication.focusObject() is regenerate, "Tab reaches the actions, left to right"
    assert actions_drawn(answer), "the keyboard's focus draws them"
    qtbot.keyClick(regenerate, Qt.Key.Key_Space)
    assert pressed == ["again"]
    qtbot.keyClick(regenerate, Qt.Key.Key_Tab)
    assert QGuiApplication.focusObject() is copy and actions_drawn(answer)
    regenerate.clearFocus()
    copy.clearFocus()
    qtbot.waitUntil(lambda: not actions_drawn(answer))

    centre = QPointF(answer.rect().center())
    entered = QEnterEvent(centre, centre, QPointF(answer.mapToGlobal(centre)))
    QApplication.sendEvent(answer, entered)  # the pointer comes over the message
    assert actions_drawn(answer), "hovering the message draws them"
    QApplication.sendEvent(answer, QEvent(QEvent.Type.Leave))
    assert not actions_drawn(answer), "and leaving it hides them again"
    QApplication.sendEvent(answer, entered)
    qtbot.mouseClick(copy, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "The answer."


def test_a_row_put_under_an_answer_by_another_part_joins_its_actions(qtbot: QtBot) -> None:
    view = shown_view(qtbot, 900)
    answer = view.add_message("assistant", "The answer.")
    row = QWidget(answer)
    link = QPushButton("What the model got", row)
    layout = answer.layout()
    assert layout is not None
    layout.addWidget(row)
    row.show()
    centre = QPointF(answer.rect().center())
    QApplication.sendEvent(answer, QEnterEvent(centre, centre, QPointF(answer.mapToGlobal(centre))))
    assert link.parentWidget() is not row, "the pointer over the message gathers its actions at once"
    assert link.isVisibleTo(answer), "and the moved link is drawn at once, not after a queued show"
    assert link.parentWidget() is answer.copy_button.parentWidget() if answer.copy_button else False
    assert row.isHidden() and link.isVisibleTo(answer)
    assert link.nextInFocusChain() is answer.copy_button, "Tab follows the row as drawn"


def test_themed_sheets_follow_a_change_of_theme(qtbot: QtBot) -> None:
    label = muted(QLabel("secondary"))
    qtbot.addWidget(label)
    badge = QLabel("done")
    qtbot.addWidget(badge)
    themed(badge, lambda p: f"color: {p.on_accent}; background: {p.success};")
    view = ConversationView()
    qtbot.addWidget(view)
    column = view.widget()
    assert column is not None
    light = tokens()

    def surface() -> str:
        return column.palette().color(QPalette.ColorRole.Window).name()

    assert light.muted in label.styleSheet() and light.success in badge.styleSheet() and surface() == light.surface
    app = QGuiApplication.instance()
    assert isinstance(app, QGuiApplication)
    before = QGuiApplication.palette()
    other = DARK if light is LIGHT else LIGHT
    palette = QGuiApplication.palette()
    palette.setColor(palette.ColorRole.Window, other.window)
    QGuiApplication.setPalette(palette)
    try:
        assert tokens() is other
        assert restyle() >= 2
        assert other.muted in label.styleSheet() and other.success in badge.styleSheet()
        assert surface() == other.surface, "the chat's surface follows by itself"
    finally:
        QGuiApplication.setPalette(before)
        restyle()
    assert light.muted in label.styleSheet()

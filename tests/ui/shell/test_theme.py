"""The theme chosen in Settings (system, light, dark) colours the running window at once and the next start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLineEdit, QProxyStyle, QStyle, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import load_settings
from desktop_app.qt_kit.theme import tokens
from desktop_app.qt_kit.tokens import DARK, LIGHT
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.tool_card import ToolCard
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.application import apply_theme, saved_theme
from desktop_app.ui.shell.main_window import MainWindow
from tests.ui.chat_window import run_fixture_window, until


def window_colour(app: QApplication) -> int:
    return app.palette().color(QPalette.ColorRole.Window).lightness()


def text_lightness(widget: QWidget) -> int:
    return widget.palette().color(QPalette.ColorRole.WindowText).lightness()


def base_lightness(widget: QWidget) -> int:
    return widget.palette().color(QPalette.ColorRole.Base).lightness()


def surface(window: MainWindow) -> str:
    """The colour the conversation's rows sit on."""
    column = window.conversation.widget()
    assert column is not None
    return column.palette().color(QPalette.ColorRole.Window).name()


def test_a_dark_theme_from_settings_colours_the_window_and_back(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    system = window_colour(qapp)

    async def choose(window: MainWindow, theme: str) -> None:
        window.menu_actions.settings.trigger()
        await until(lambda: window.findChildren(SettingsDialog), what="the settings")
        [dialog] = window.findChildren(SettingsDialog)
        dialog.model.setCurrentText("gpt-4o-mini")
        index = dialog.theme.findData(theme)
        dialog.theme.setFocus()
        while dialog.theme.currentIndex() != index:  # the arrow keys, as on a closed combo box
            key = Qt.Key.Key_Down if dialog.theme.currentIndex() < index else Qt.Key.Key_Up
            qtbot.keyClick(dialog.theme, key)
        buttons = dialog.findChild(QDialogButtonBox)
        assert buttons is not None
        qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
        await until(lambda: not window.findChildren(SettingsDialog), what="the settings saved")

    async def scenario(window: MainWindow) -> None:
        bubble = window.conversation.add_message("assistant", "Some **bold** words.")
        light_sheet = bubble.styleSheet()
        card = ToolCard("c1", "demo", "save", {"a": 1}, description="Saves a note.")
        window.conversation.add_widget(card)
        assert text_lightness(card.title) < 128 and base_lightness(card.arguments) > 128
        await choose(window, "dark")
        # A card has a style sheet of its own: its title and arguments follow the theme all the same.
        assert text_lightness(card.title) > 128 and base_lightness(card.arguments) < 128
        assert window_colour(qapp) < 128 and load_settings(tmp_path / "settings.json").settings.theme == "dark"
        assert saved_theme(tmp_path / "settings.json") == "dark", "read before the window's first paint"
        assert bubble.styleSheet() != light_sheet and DARK.muted in bubble.styleSheet(), "a bubble follows the theme"
        # Sheets and colours built from the tokens are built again from the dark ones: nothing keeps the light.
        assert DARK.surface in window.composer.styleSheet() and DARK.muted in card.description.styleSheet()
        assert surface(window) == DARK.surface
        window.resize(1024, 640)
        window.grab().save(str(tmp_path / "dark-1024x640.png"))
        await choose(window, "system")
        assert window_colour(qapp) == system and bubble.styleSheet() == light_sheet
        assert tokens().surface in window.composer.styleSheet() and surface(window) == tokens().surface
        assert text_lightness(card.title) < 128 and base_lightness(card.arguments) > 128
        assert [b for b in window.conversation.findChildren(MessageBubble) if b is bubble]

    try:
        run_fixture_window(qapp, tmp_path, scenario)
    finally:
        apply_theme(qapp, "system")  # the next test's window starts as the system's


def test_the_themes_chosen_in_settings_take_the_tokens_colours_where_fusion_draws(qapp: QApplication) -> None:
    system = QPalette(qapp.palette())
    try:
        apply_theme(qapp, "dark")
        if qapp.styleHints().colorScheme() is not Qt.ColorScheme.Dark or qapp.style().name().lower() == "fusion":
            palette = qapp.palette()
            assert palette.color(QPalette.ColorRole.Window).name() == DARK.window
            assert palette.color(QPalette.ColorRole.PlaceholderText).name() == DARK.muted
            assert palette.color(QPalette.ColorRole.Link).name() == DARK.accent
        apply_theme(qapp, "light")
        if qapp.style().name().lower() == "fusion":
            palette = qapp.palette()
            assert palette.color(QPalette.ColorRole.PlaceholderText).name() == LIGHT.muted  # 6.9:1, not 4.4:1
            assert palette.color(QPalette.ColorRole.Link).name() == LIGHT.accent
    finally:
        apply_theme(qapp, "system")
    assert qapp.palette().color(QPalette.ColorRole.Window) == system.color(QPalette.ColorRole.Window)


def test_fields_are_framed_in_the_field_border_on_the_field_colour_in_both_themes(
    qapp: QApplication, qtbot: QtBot
) -> None:
    """Every window's fields (a card's form, the gallery, Settings) take one application sheet from the tokens."""
    form = QWidget()
    qtbot.addWidget(form)
    field = QLineEdit(form)
    field.setGeometry(10, 10, 200, 30)
    try:
        for theme, palette in (("dark", DARK), ("light", LIGHT)):
            apply_theme(qapp, theme)
            if tokens() is not palette:
                continue  # the platform's own scheme, which the tokens follow, did not switch
            form.show()
            image = field.grab().toImage()
            assert image.pixelColor(0, image.height() // 2).name() == palette.field_border
            assert image.pixelColor(image.width() - 8, image.height() // 2).name() == palette.field
    finally:
        apply_theme(qapp, "system")


class _IconsOnButtons(QProxyStyle):
    """A platform style that puts icons on a dialog's buttons (as Fusion does under X11; offscreen does not)."""

    def styleHint(self, hint: QStyle.StyleHint, *args: Any) -> int:
        if hint == QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons:
            return 1
        return super().styleHint(hint, *args)


def test_a_dialogs_buttons_carry_no_icon_of_the_platform_style(qapp: QApplication, qtbot: QtBot) -> None:
    """Save, Cancel and Apply are words: the platform's floppy disk and red cross are not the app's icon family."""
    try:
        apply_theme(qapp, "dark")
        buttons = QDialogButtonBox()
        qtbot.addWidget(buttons)
        style = _IconsOnButtons("Fusion")
        buttons.setStyle(style)
        for standard in (
            QDialogButtonBox.StandardButton.Save,
            QDialogButtonBox.StandardButton.Cancel,
            QDialogButtonBox.StandardButton.Apply,
        ):
            buttons.addButton(standard)
        assert [button.icon().isNull() for button in buttons.buttons()] == [True, True, True]
    finally:
        apply_theme(qapp, "system")

"""The Qt application's identity, quit policy and colours, set before the window exists (QSettings reads
the names; the saved theme is read here too, so the first paint already has the user's colours); its
icon right after the first paint (loading it costs about as much as the rest of the frame)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from desktop_app.core.paths import SETTINGS_FILENAME, config_dir

_SYSTEM_PALETTE: Final = "mcpDeskSystemPalette"


def set_up_application(app: QApplication) -> None:
    app.setApplicationName("MCP Desk")
    app.setOrganizationName("MCP Desk")
    app.setDesktopFileName("mcp-desk")
    app.setQuitOnLastWindowClosed(False)  # quitting waits until every server has stopped
    use_palette(app, saved_theme(config_dir() / SETTINGS_FILENAME))  # the sheets come with the panes (apply_theme)


def set_app_icon(app: QApplication) -> None:
    """The title bar's and task switcher's icon, for every window (the main window's frame is already shown)."""
    from desktop_app.ui.shell.app_icon import app_icon

    app.setWindowIcon(app_icon())


def saved_theme(settings_path: Path) -> str:
    """The theme in the settings file, read without the rest of the settings (they load after the first paint)."""
    try:
        theme = json.loads(settings_path.read_text(encoding="utf-8")).get("theme")
    except (OSError, ValueError, AttributeError):
        return "system"
    return theme if theme in ("light", "dark") else "system"


def use_palette(app: QApplication, theme: str) -> None:
    """Use `theme`'s palette ("light", "dark", anything else: the system's): the platform's own scheme where
    it can switch, else Fusion's. All the first frame needs: it has no field and no sheet yet."""
    if app.property(_SYSTEM_PALETTE) is None:
        app.setProperty(_SYSTEM_PALETTE, QPalette(app.palette()))  # what "system" goes back to
    _switch_palette(app, theme)


def apply_theme(app: QApplication, theme: str) -> None:
    """Use `theme`'s colours from now on, in the palette, the fields and every widget's own sheet."""
    use_palette(app, theme)
    from desktop_app.qt_kit.theme import style_fields  # the window's look: loaded by its panes in any case

    style_fields(app)  # the fields' frames in the new colours (this polishes every widget again)
    # A widget with a style sheet of its own (a card's frame, a muted note) keeps the palette it was
    # polished with: the old theme's text on the new background until its sheet is applied again.
    for widget in app.allWidgets():
        if sheet := widget.styleSheet():
            widget.setStyleSheet(sheet)


def _switch_palette(app: QApplication, theme: str) -> None:
    hints = app.styleHints()
    if theme not in ("light", "dark"):
        hints.unsetColorScheme()
        app.setPalette(app.property(_SYSTEM_PALETTE))
        return
    scheme = Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light
    hints.setColorScheme(scheme)
    if hints.colorScheme() == scheme:
        return  # the platform switched its own colours
    if app.style().name().lower() != "fusion" and (fusion := QStyleFactory.create("Fusion")) is not None:
        app.setStyle(fusion)  # a native style may ignore a palette; Fusion draws with it
    app.setPalette(dark_palette() if theme == "dark" else light_palette(app.style().standardPalette()))


def light_palette(standard: QPalette) -> QPalette:
    """Fusion's light colours with the tokens' placeholder and link colours (Fusion's placeholder grey
    is 4.4:1 on white, under AA; the tokens' muted text is 6.9:1)."""
    from desktop_app.qt_kit.tokens import LIGHT  # only for a theme chosen in Settings: not before every first paint

    standard.setColor(QPalette.ColorRole.PlaceholderText, QColor(LIGHT.muted))
    standard.setColor(QPalette.ColorRole.Link, QColor(LIGHT.accent))
    return standard


def dark_palette() -> QPalette:
    """Fusion's colours for a dark window (where the platform has no dark scheme to switch to), from the
    dark theme's tokens, so the frame and the panes' own sheets agree."""
    from desktop_app.qt_kit.tokens import DARK  # only for a theme chosen in Settings: not before every first paint

    palette = QPalette()
    roles = QPalette.ColorRole
    for role, colour in (
        (roles.Window, DARK.window),
        (roles.WindowText, DARK.text),
        (roles.Base, DARK.surface),
        (roles.AlternateBase, DARK.raised),
        (roles.ToolTipBase, DARK.raised),
        (roles.ToolTipText, DARK.text),
        (roles.PlaceholderText, DARK.muted),
        (roles.Text, DARK.text),
        (roles.Button, "#35373c"),
        (roles.ButtonText, DARK.text),
        (roles.BrightText, DARK.danger),
        (roles.Light, "#4a4c52"),
        (roles.Midlight, "#3d3f44"),
        (roles.Mid, "#2f3135"),
        (roles.Dark, "#1b1c1f"),
        (roles.Shadow, "#000000"),
        (roles.Link, DARK.accent),
        (roles.LinkVisited, "#b48cff"),
        (roles.Highlight, "#3d6fd9"),
        (roles.HighlightedText, "#ffffff"),
    ):
        palette.setColor(role, QColor(colour))
    for role in (roles.Text, roles.WindowText, roles.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7d8088"))
    return palette

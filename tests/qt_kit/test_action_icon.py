"""The action icons: every vendored drawing renders at 1x and 2x, in the current theme's colours (a change
of theme recolours an icon already on a button), and every icon the code names is in the folder."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QGuiApplication, QIcon, QImage, QPalette
from PySide6.QtWidgets import QApplication, QPushButton, QToolButton
from pytestqt.qtbot import QtBot

from desktop_app.qt_kit.action_icon import (
    BUTTON_ICON,
    DISABLED_OPACITY,
    ICON_FOLDER,
    TEXT_GAP,
    IconNotFound,
    action_icon,
    give_icon,
    icon_only,
)
from desktop_app.qt_kit.theme import FIELD_ARROWS, tokens
from desktop_app.qt_kit.tokens import DARK, LIGHT, Palette

ROOT = Path(__file__).resolve().parents[2]
VENDORED = sorted(path.stem for path in ICON_FOLDER.glob("*.svg"))
ICON_CALLS = frozenset({"action_icon", "give_icon", "icon_only"})


def opaque_colours(image: QImage) -> set[str]:
    """The colours of the pixels the drawing covers wholly (its strokes' cores, not their soft edges)."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    return {
        image.pixelColor(x, y).name()
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).alpha() == 255
    }


def drawn_at(icon: QIcon, scale: float, mode: QIcon.Mode = QIcon.Mode.Normal) -> QImage:
    return icon.pixmap(QSize(BUTTON_ICON, BUTTON_ICON), scale, mode).toImage()


@contextmanager
def other_theme() -> Iterator[Palette]:
    """The application in the other theme's colours for a while (as Settings or the system switches it)."""
    before = QGuiApplication.palette()
    other = DARK if tokens() is LIGHT else LIGHT
    palette = QGuiApplication.palette()
    palette.setColor(QPalette.ColorRole.Window, other.window)
    QGuiApplication.setPalette(palette)
    try:
        assert tokens() is other
        yield other
    finally:
        QGuiApplication.setPalette(before)


def test_the_folder_holds_lucides_drawings_with_their_licence_and_version() -> None:
    assert len(VENDORED) >= 10
    licence = (ICON_FOLDER / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("ISC License") and "Lucide Contributors" in licence
    version = re.search(r"lucide-static` (\d+\.\d+\.\d+)", (ICON_FOLDER / "README.md").read_text(encoding="utf-8"))
    assert version is not None, "the README names the package and version they came from"
    for name in VENDORED:
        svg = (ICON_FOLDER / f"{name}.svg").read_text(encoding="utf-8")
        assert f"@license lucide-static v{version[1]} - ISC" in svg, f"{name}.svg is from another version"
        assert 'stroke="currentColor"' in svg, f"{name}.svg could not take the theme's colour"


@pytest.mark.parametrize("name", VENDORED)
def test_every_icon_is_drawn_at_1x_and_2x_in_the_themes_muted_colour(qapp: QApplication, name: str) -> None:
    icon = action_icon(name)
    assert not icon.isNull() and icon.name() == name
    once, twice = drawn_at(icon, 1.0), drawn_at(icon, 2.0)
    assert (once.size(), twice.size()) == (QSize(16, 16), QSize(32, 32))
    assert twice.devicePixelRatio() == 2.0
    assert opaque_colours(twice) == {tokens().muted}, "the strokes' cores are exactly the token"
    assert any(once.pixelColor(x, y).alpha() > 128 for y in range(16) for x in range(16))
    upscaled = once.scaled(32, 32, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)
    assert twice != upscaled.convertToFormat(twice.format()), "2x is drawn from the SVG, not a 1x image stretched"


def test_the_modes_draw_the_tokens_of_their_roles(qapp: QApplication) -> None:
    icon = action_icon("copy")
    p = tokens()
    assert opaque_colours(drawn_at(icon, 2.0, QIcon.Mode.Active)) == {p.accent}
    highlighted = QGuiApplication.palette().color(QPalette.ColorRole.HighlightedText).name()
    assert opaque_colours(drawn_at(icon, 2.0, QIcon.Mode.Selected)) == {highlighted}
    faded = drawn_at(icon, 2.0, QIcon.Mode.Disabled).convertToFormat(QImage.Format.Format_ARGB32)
    alphas = {faded.pixelColor(x, y).alpha() for y in range(32) for x in range(32)}
    assert max(alphas) == round(255 * DISABLED_OPACITY), "a disabled action's icon is its colour, faded"
    on_fill = action_icon("send-horizontal", rest="on_accent", active="on_accent")
    assert opaque_colours(drawn_at(on_fill, 2.0)) == opaque_colours(drawn_at(on_fill, 2.0, QIcon.Mode.Active))
    assert opaque_colours(drawn_at(on_fill, 2.0)) == {p.on_accent}


def test_an_icon_on_a_button_follows_a_change_of_theme(qapp: QApplication, qtbot: QtBot) -> None:
    button = QPushButton("Copy")
    qtbot.addWidget(button)
    give_icon(button, "copy")
    icon = button.icon()
    before = tokens()
    assert opaque_colours(drawn_at(icon, 2.0)) == {before.muted}
    with other_theme() as other:
        # The same icon, never set again: drawn from the new tokens at its next paint.
        assert opaque_colours(drawn_at(button.icon(), 2.0)) == {other.muted}
        assert other.muted != before.muted
    assert opaque_colours(drawn_at(icon, 2.0)) == {before.muted}


def test_a_button_with_text_keeps_a_gap_between_its_icon_and_the_text(qapp: QApplication, qtbot: QtBot) -> None:
    button = give_icon(QPushButton("Restart"), "rotate-cw")
    qtbot.addWidget(button)
    assert button.iconSize() == QSize(BUTTON_ICON + TEXT_GAP, BUTTON_ICON)
    image = button.icon().pixmap(button.iconSize(), 2.0).toImage().convertToFormat(QImage.Format.Format_ARGB32)
    gap = [image.pixelColor(x, y).alpha() for y in range(image.height()) for x in range(2 * BUTTON_ICON, image.width())]
    assert gap and max(gap) == 0, "the drawing stays square at the left; the rest is the gap"


def test_a_push_button_draws_its_icon_in_the_accent_while_hovered(qapp: QApplication, qtbot: QtBot) -> None:
    button = give_icon(QPushButton("Edit…"), "pencil")
    qtbot.addWidget(button)
    p = tokens()
    QApplication.sendEvent(button, QEvent(QEvent.Type.Enter))
    assert opaque_colours(drawn_at(button.icon(), 2.0)) == {p.accent}
    QApplication.sendEvent(button, QEvent(QEvent.Type.Leave))
    assert opaque_colours(drawn_at(button.icon(), 2.0)) == {p.muted}


def test_an_icon_only_button_is_named_for_screen_readers_and_tells_what_it_does(qtbot: QtBot) -> None:
    button = QToolButton()
    qtbot.addWidget(button)
    icon_only(button, "x", "Close", "Close the viewer")
    assert (button.text(), button.accessibleName(), button.toolTip()) == ("", "Close", "Close the viewer")
    assert button.iconSize() == QSize(BUTTON_ICON, BUTTON_ICON) and button.icon().name() == "x"


def test_an_unknown_icon_fails_where_it_is_made(qapp: QApplication) -> None:
    with pytest.raises(IconNotFound, match="no-such-icon"):
        action_icon("no-such-icon")


def icon_names_in(tree: ast.AST) -> set[str]:
    """The icon names a module's code passes to the icon functions: literally, through a loop over
    (widget, name) pairs, or from a table named `…_ICONS`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) in ICON_CALLS:
            position = 0 if _called(node) == "action_icon" else 1
            if len(node.args) > position and isinstance(arg := node.args[position], ast.Constant):
                names.add(str(arg.value))
        elif isinstance(node, ast.For) and any(
            isinstance(call, ast.Call) and _called(call) in ICON_CALLS for call in ast.walk(node)
        ):
            names |= {c.value for c in ast.walk(node.iter) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
        elif isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Dict):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id.endswith("_ICONS") for t in targets):
                names |= {str(v.value) for v in node.value.values if isinstance(v, ast.Constant)}
    return names


def _called(call: ast.Call) -> str:
    function = call.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def test_every_icon_the_code_names_is_in_the_folder_and_every_drawing_is_used() -> None:
    used: dict[str, set[str]] = {}
    for path in [*(ROOT / "desktop_app").rglob("*.py"), *(ROOT / "resources_ui").rglob("*.py")]:
        source = path.read_text(encoding="utf-8")
        if "action_icon import" in source:
            for name in icon_names_in(ast.parse(source)):
                used.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    for name in FIELD_ARROWS:  # drawn by the application's sheet, from files: not through `action_icon`
        used.setdefault(name, set()).add("desktop_app/qt_kit/theme.py")
    missing = {name: files for name, files in used.items() if name not in VENDORED}
    assert missing == {}
    assert {"copy", "send-horizontal", "x", "trash-2", "settings"} <= used.keys(), "the scan finds the uses"
    assert sorted(used) == VENDORED, "a drawing nothing uses is not shipped"

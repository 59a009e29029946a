"""The icons of the window's actions: one family (Lucide's line drawings), in the theme's colours, sharp at any scale.

The drawings are SVG files in `action_icons/`, written in `currentColor`. An icon is drawn when it is
painted, from the SVG, at the size and device pixel ratio asked for (a 200% screen gets twice the
pixels, not a stretched 1x image), in the colour of the theme the window shows then: muted at rest,
the accent when hovered or focused. A change of theme repaints every widget, and the icons are drawn
anew from the new tokens; no icon keeps a theme's colour, so none needs a follower in `theme` (where a
widget has one, and a button's is its sheet's: Send's). Drawings are kept per name, colour and size.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Final

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QRectF, QSize, Qt, QUrl
from PySide6.QtGui import QGuiApplication, QIcon, QIconEngine, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QAbstractButton, QPushButton

from desktop_app.qt_kit.theme import tokens
from desktop_app.qt_kit.tokens import DARK, LIGHT, SPACE, TEXT_ROLES

ICON_FOLDER: Final = Path(__file__).with_name("action_icons")
BUTTON_ICON: Final = 16
"""A button's icon, in pixels at 100%."""
MESSAGE_ICON: Final = 14
"""A message's actions are drawn smaller than the window's buttons: they sit under the text, in small type."""
TEXT_GAP: Final = SPACE.s
"""Between an icon and its button's text, which the styles leave only a pixel or two apart."""
DISABLED_OPACITY: Final = 0.45
HIGHLIGHTED: Final = "highlighted"
"""Not a token: the colour the platform writes on its selection highlight (a menu's entry under the pointer),
which the tokens do not choose."""


IMAGE_SCHEME: Final = "action-icon"
"""The address of an action icon in a rich text (`image_address`), which its view draws (`address_image`)."""


class IconNotFound(LookupError):
    """No SVG of that name is in `action_icons/`."""


@cache
def _svg(name: str) -> str:
    path = ICON_FOLDER / f"{name}.svg"
    if not path.is_file():
        raise IconNotFound(f"no action icon named {name!r} in {ICON_FOLDER.name}/")
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=512)
def _drawn(name: str, colour: str, width: int, height: int, opacity: float) -> QImage:
    """`name` drawn in `colour` into a `width` × `height` image (device pixels), square: at the left of a
    wider image (the rest is the gap before a button's text), in the middle of a taller one."""
    renderer = QSvgRenderer(QByteArray(_svg(name).replace("currentColor", colour).encode()))
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    side = min(width, height)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setOpacity(opacity)
    renderer.render(painter, QRectF(0, (height - side) / 2, side, side))
    painter.end()
    return image


class _TokenIconEngine(QIconEngine):
    """Draws one SVG at the size asked for, in the colour the current theme's tokens give each mode."""

    def __init__(self, name: str, roles: Mapping[QIcon.Mode, str]) -> None:
        super().__init__()
        _svg(name)  # an unknown name fails where the icon is made, not at its first paint
        self._name = name
        self._roles = dict(roles)

    def colour(self, mode: QIcon.Mode) -> str:
        """The colour `mode` is drawn in now (a disabled icon: its normal colour, faded)."""
        role = self._roles[QIcon.Mode.Normal if mode is QIcon.Mode.Disabled else mode]
        if role == HIGHLIGHTED:
            return QGuiApplication.palette().color(QPalette.ColorRole.HighlightedText).name()
        return str(getattr(tokens(), role))

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        width, height = max(round(size.width() * scale), 1), max(round(size.height() * scale), 1)
        opacity = DISABLED_OPACITY if mode is QIcon.Mode.Disabled else 1.0
        pixmap = QPixmap.fromImage(_drawn(self._name, self.colour(mode), width, height, opacity))
        pixmap.setDevicePixelRatio(scale)
        return pixmap

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        device = painter.device()
        scale = device.devicePixelRatioF() if device is not None else 1.0
        painter.drawPixmap(rect, self.scaledPixmap(rect.size(), mode, state, scale))

    def iconName(self) -> str:
        return self._name

    def isNull(self) -> bool:
        return False

    def clone(self) -> QIconEngine:
        return _TokenIconEngine(self._name, self._roles)


def action_icon(name: str, rest: str = "muted", active: str = "accent") -> QIcon:
    """The icon `name` of `action_icons/`: in the token `rest` at rest, `active` when hovered or focused
    (a menu's entry: `HIGHLIGHTED`), on a selection's highlight in the colour of its text."""
    roles = {QIcon.Mode.Normal: rest, QIcon.Mode.Active: active, QIcon.Mode.Selected: HIGHLIGHTED}
    return QIcon(_TokenIconEngine(name, roles))


class _HoverTint(QObject):
    """A push button draws its icon's active colour only while focused: this gives it that colour on hover too."""

    def __init__(self, button: QPushButton, rest: QIcon, hovered: QIcon) -> None:
        super().__init__(button)
        self._rest = rest
        self._hovered = hovered
        button.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(watched, QPushButton) and event.type() in (QEvent.Type.Enter, QEvent.Type.Leave):
            watched.setIcon(self._hovered if event.type() is QEvent.Type.Enter else self._rest)
        return False


def give_icon(
    button: QAbstractButton, name: str, size: int = BUTTON_ICON, rest: str = "muted", active: str = "accent"
) -> QAbstractButton:
    """Put the icon `name`, `size` pixels square, before `button`'s text (alone, for a button without one)."""
    icon = action_icon(name, rest, active)
    button.setIcon(icon)
    button.setIconSize(QSize(size + (TEXT_GAP if button.text() else 0), size))
    if isinstance(button, QPushButton) and rest != active:
        _HoverTint(button, icon, action_icon(name, active, active))
    return button


def icon_only(button: QAbstractButton, name: str, label: str, tip: str) -> QAbstractButton:
    """`button` shows the icon `name` alone: `label` names it to screen readers, `tip` says what it does."""
    button.setText("")
    give_icon(button, name)
    button.setAccessibleName(label)
    button.setToolTip(tip)
    return button


def image_address(name: str, role: str, *, dark: bool) -> str:
    """The address a rich text names the icon `name` by, drawn in the token `role` of the light or dark theme:
    `<img src=...>` shows it in a view that answers its `loadResource` with `address_image`."""
    return f"{IMAGE_SCHEME}:{name}/{role}/{'dark' if dark else 'light'}"


def address_image(address: QUrl | str, side: int, scale: float) -> QImage | None:
    """The image an `image_address` names, `side` pixels square at `scale` (the view's device pixel ratio);
    None for any other address, or a name, role or theme the kit does not have."""
    url = address if isinstance(address, QUrl) else QUrl(address)
    if url.scheme() != IMAGE_SCHEME:
        return None
    name, _, rest = url.path().partition("/")
    role, _, theme = rest.partition("/")
    if role not in TEXT_ROLES or theme not in ("light", "dark") or not name.replace("-", "").isalnum():
        return None
    try:
        _svg(name)
    except IconNotFound:
        return None
    colour = str(getattr(DARK if theme == "dark" else LIGHT, role))
    pixels = max(round(side * scale), 1)
    image = QImage(_drawn(name, colour, pixels, pixels, 1.0))
    image.setDevicePixelRatio(scale)
    return image

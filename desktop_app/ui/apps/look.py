"""The window's look as MCP Apps theme variables, so a view can match the app's light or dark palette."""

from __future__ import annotations

from typing import Final

from PySide6.QtGui import QColor, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import QWidget

ACCENTS: Final = {"info": "#4f6cf7", "danger": "#d64545", "success": "#2e9e5b", "warning": "#d9a21b"}
"""The badge colours of the tool cards, reused so an app's states read like the window's."""


def _css(color: QColor) -> str:
    if color.alpha() == 255:
        return color.name(QColor.NameFormat.HexRgb)
    return f"rgba({color.red()}, {color.green()}, {color.blue()}, {color.alphaF():.2f})"


def _mix(color: str, base: QColor, share: float) -> str:
    accent = QColor(color)
    mixed = QColor(
        round(accent.red() * share + base.red() * (1 - share)),
        round(accent.green() * share + base.green() * (1 - share)),
        round(accent.blue() * share + base.blue() * (1 - share)),
    )
    return _css(mixed)


def is_dark(widget: QWidget) -> bool:
    return widget.palette().color(QPalette.ColorRole.Window).lightness() < 128


def style_variables(widget: QWidget) -> dict[str, str]:
    """The specification's standard CSS variables, from `widget`'s palette and the app's fonts."""
    palette = widget.palette()
    role = QPalette.ColorRole
    base, window, text = palette.color(role.Base), palette.color(role.Window), palette.color(role.Text)
    muted = palette.color(role.PlaceholderText)
    border = palette.color(role.Mid)
    disabled = palette.color(QPalette.ColorGroup.Disabled, role.Text)
    variables = {
        "--color-background-primary": _css(base),
        "--color-background-secondary": _css(window),
        "--color-background-tertiary": _css(palette.color(role.AlternateBase)),
        "--color-background-inverse": _css(text),
        "--color-background-ghost": "transparent",
        "--color-background-disabled": _css(window),
        "--color-text-primary": _css(text),
        "--color-text-secondary": _css(muted),
        "--color-text-tertiary": _css(disabled),
        "--color-text-inverse": _css(base),
        "--color-text-ghost": _css(muted),
        "--color-text-disabled": _css(disabled),
        "--color-border-primary": _css(border),
        "--color-border-secondary": _mix(_css(border), base, 0.6),
        "--color-border-tertiary": _mix(_css(border), base, 0.35),
        "--color-border-inverse": _css(text),
        "--color-border-ghost": "transparent",
        "--color-border-disabled": _css(disabled),
        "--color-ring-primary": _css(palette.color(role.Highlight)),
        "--color-ring-secondary": _css(muted),
        "--color-ring-inverse": _css(base),
    }
    for name, accent in ACCENTS.items():
        variables[f"--color-background-{name}"] = _mix(accent, base, 0.14)
        variables[f"--color-text-{name}"] = accent
        variables[f"--color-border-{name}"] = accent
        variables[f"--color-ring-{name}"] = accent
    font = QGuiApplication.font()
    mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    size = round((font.pointSizeF() if font.pointSizeF() > 0 else 10) * 96 / 72)
    variables |= {
        "--font-sans": f'"{font.family()}", system-ui, sans-serif',
        "--font-mono": f'"{mono.family()}", ui-monospace, monospace',
        "--font-weight-normal": "400",
        "--font-weight-medium": "500",
        "--font-weight-semibold": "600",
        "--font-weight-bold": "700",
    }
    for step, offset in (("xs", -3), ("sm", -1), ("md", 0), ("lg", 2)):
        variables[f"--font-text-{step}-size"] = f"{size + offset}px"
        variables[f"--font-text-{step}-line-height"] = "1.45"
    for index, step in enumerate(("xs", "sm", "md", "lg", "xl", "2xl", "3xl")):
        variables[f"--font-heading-{step}-size"] = f"{size + 2 + index * 3}px"
        variables[f"--font-heading-{step}-line-height"] = "1.25"
    variables |= {
        "--border-radius-xs": "4px",
        "--border-radius-sm": "6px",
        "--border-radius-md": "8px",
        "--border-radius-lg": "12px",
        "--border-radius-xl": "16px",
        "--border-radius-full": "9999px",
        "--border-width-regular": "1px",
        "--shadow-hairline": f"0 0 0 1px {_mix(_css(border), base, 0.5)}",
        "--shadow-sm": "0 1px 2px rgba(0, 0, 0, 0.12)",
        "--shadow-md": "0 2px 8px rgba(0, 0, 0, 0.16)",
        "--shadow-lg": "0 8px 24px rgba(0, 0, 0, 0.2)",
    }
    return variables

"""Nothing on screen is cut, at 1024x640 and even at 800x600: every visible label's and button's text fits
where it is seen, the folded docks' tab titles are whole, the viewer's meta line and the status bar say
what fits in full, and the empty composer leaves the height to the conversation. Screenshots of each size
are saved in the test's folder."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QTabBar, QWidget

from desktop_app.ui.conversation.composer import MAX_LINES, MIN_LINES
from desktop_app.ui.dock_fit import CHAT_MIN
from desktop_app.ui.fitting_label import FittingLabel
from desktop_app.ui.main_window import MainWindow
from resources_ui.drag_payload import ResourceRef
from resources_ui.elided_label import ElidedLabel
from resources_ui.viewers.viewer_pane import ViewerKind
from tests.ui.test_window_actions import run_app, until

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")


async def resized(window: MainWindow, width: int, height: int) -> None:
    window.resize(width, height)
    await until(lambda: window.size().toTuple() == (width, height), what=f"the window at {width}x{height}")
    await until(lambda: not window.dock_fit._pending.isActive(), what="the docks fitted")
    await asyncio.sleep(0.05)  # let the layout apply what was fitted


def cut(window: MainWindow) -> list[str]:
    """Every visible text the window shows only in part: wider than what is seen of its widget."""
    problems = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or (seen := widget.visibleRegion().boundingRect()).isEmpty():
            continue
        if isinstance(widget, FittingLabel):
            text = widget.shown()
        elif isinstance(widget, ElidedLabel):  # it shortens on purpose; what it shows must be seen
            text = QLabel.text(widget)
        elif isinstance(widget, QLabel) and not widget.wordWrap():
            text = widget.text() if widget.textFormat().name != "RichText" else ""
        elif isinstance(widget, QAbstractButton):
            text = widget.text()
        else:
            continue
        if text and "\n" not in text and widget.fontMetrics().horizontalAdvance(text) > seen.width() + 2:
            problems.append(f"{type(widget).__name__} {widget.objectName()!r} {text[:40]!r}")
    for bar in window.findChildren(QTabBar):
        if bar.isVisible() and bar.parent() is window:
            for index in range(bar.count()):
                if bar.tabRect(index).width() < bar.tabSizeHint(index).width():
                    problems.append(f"tab {bar.tabText(index)!r} elided")
                if not bar.rect().contains(bar.tabRect(index)):
                    problems.append(f"tab {bar.tabText(index)!r} scrolled out of sight")
    return problems


def test_nothing_is_cut_at_narrow_sizes_and_the_composer_grows_with_its_text(
    qapp: QApplication, tmp_path: Path
) -> None:
    QSettings().remove("window")  # a first start

    async def scenario(window: MainWindow) -> None:
        viewer = window.resources.viewer
        window.chat_actions.open_resource(ResourceRef("fx", "fixture://doc.pdf", "A document", "application/pdf"))
        await until(lambda: viewer.current_kind is ViewerKind.PDF, what="the PDF in the viewer")
        window.status_meter.update_model()
        editor = window.composer.editor
        line = editor.fontMetrics().lineSpacing()
        for width, height in ((1024, 640), (800, 600)):
            await resized(window, width, height)
            window.grab().save(str(tmp_path / f"{width}x{height}.png"))
            assert window.dock_fit.folded, "the viewer is a tab beside the resources"
            assert cut(window) == [], f"at {width}x{height}"
            assert window.centralWidget().width() >= CHAT_MIN
            assert viewer.meta.text() in QLabel.text(viewer.meta), "the meta line is whole"
            assert all(label.fits() for label in window.statusBar().findChildren(FittingLabel) if label.isVisible())
            assert editor.height() < (MIN_LINES + 1) * line + 20, "the empty composer is two lines tall"

        editor.setPlainText("\n".join(f"line {n}" for n in range(3)))
        await until(lambda: editor.height() >= 3 * line, what="the composer grown to three lines")
        editor.setPlainText("\n".join(f"line {n}" for n in range(40)))
        await until(lambda: editor.height() >= MAX_LINES * line, what="the composer at its tallest")
        assert editor.height() < (MAX_LINES + 1) * line + 20, "then it scrolls"
        editor.clear()
        await until(lambda: editor.height() < (MIN_LINES + 1) * line + 20, what="back to two lines")

        # Widening gives the viewer its side back, and the tab the user had in front is in front again.
        window.servers_dock.raise_()
        await resized(window, 1920, 1080)
        assert not window.dock_fit.folded and window.viewer_dock.isVisible()
        await until(lambda: not window.servers_dock.visibleRegion().isEmpty(), what="Servers in front again")
        assert cut(window) == []

    run_app(qapp, tmp_path, scenario)

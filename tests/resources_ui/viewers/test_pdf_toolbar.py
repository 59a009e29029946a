"""The PDF viewer's toolbar wraps in a narrow dock: it no longer sets the viewer's minimum width, and
every control stays whole and inside the viewer."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QAbstractButton, QWidget
from pytestqt.qtbot import QtBot

from resources_ui.viewers.pdf_viewer import PdfViewer

NARROW = 220


def controls(viewer: PdfViewer) -> list[QWidget]:
    return [
        viewer.prev_button,
        viewer.page_box,
        viewer.next_button,
        viewer.zoom_out_button,
        viewer.zoom_label,
        viewer.zoom_in_button,
        viewer.fit_button,
        viewer.copy_button,
    ]


def test_the_toolbar_wraps_instead_of_setting_the_viewers_width(qtbot: QtBot) -> None:
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    assert viewer.minimumSizeHint().width() <= NARROW
    viewer.resize(NARROW, 400)
    viewer.show()
    qtbot.waitUntil(lambda: viewer.width() == NARROW)
    for control in controls(viewer):
        left = control.mapTo(viewer, QPoint(0, 0)).x()
        assert control.isVisible() and left >= 0 and left + control.width() <= NARROW, control.objectName()
        assert control.width() >= control.minimumSizeHint().width(), "whole, not squeezed"
        if isinstance(control, QAbstractButton):
            assert control.fontMetrics().horizontalAdvance(control.text()) <= control.width()
    assert viewer.copy_button.mapTo(viewer, QPoint(0, 0)).y() > viewer.prev_button.mapTo(viewer, QPoint(0, 0)).y()

    viewer.resize(600, 400)
    qtbot.waitUntil(lambda: viewer.width() == 600)
    parts = (viewer.prev_button.parentWidget(), viewer.fit_button.parentWidget(), viewer.copy_button)
    tops = {part.mapTo(viewer, QPoint(0, 0)).y() for part in parts if part is not None}
    assert len(tops) == 1, "one line when there is room"
    copy_right = viewer.copy_button.mapTo(viewer, QPoint(viewer.copy_button.width(), 0)).x()
    assert copy_right > 600 - 20, "Copy keeps to the right end"

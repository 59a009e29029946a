"""A layout's widgets, read and removed from Python without wrapping the layout's items.

PySide6 (6.12) keeps the Python wrapper of each item that `QLayout.itemAt` or `takeAt` hands out for as
long as the layout lives, filed under the item's address. Qt deletes an item by itself when its widget
leaves the layout (removed, moved to another layout, deleted): the wrapper stays on file, and the next
object Qt puts at that address reaches Python as that stale wrapper, of another type. Using it, or the
wrapper's own end, corrupts the heap: a long chat crashed once its oldest turns were folded out, sooner
on a busy machine. So the window reads its layouts through their widgets (each one's place by
`indexOf`) and takes widgets out with `removeWidget`; only a layout written in Python (`FlowLayout`)
hands out items, which Python holds anyway.
"""

from __future__ import annotations

from collections.abc import Collection

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLayout, QWidget


def placed_widgets(layout: QLayout) -> list[tuple[int, QWidget]]:
    """The widgets directly in `layout` (not in a layout nested in it), each with its index, in order."""
    owner = layout.parentWidget()
    if owner is None:
        return []
    children = owner.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
    placed = ((layout.indexOf(widget), widget) for widget in children)
    return sorted((pair for pair in placed if pair[0] >= 0), key=lambda pair: pair[0])


def widgets_in(layout: QLayout, start: int = 0, end: int | None = None) -> list[QWidget]:
    """The widgets at indexes `start`…`end - 1` of `layout` (to its end when `end` is None), in order."""
    stop = layout.count() if end is None else end
    return [widget for index, widget in placed_widgets(layout) if start <= index < stop]


def discard_widgets(layout: QLayout, keep: Collection[QWidget] = ()) -> None:
    """Take every widget but those to `keep` out of `layout` and delete it (spacers and nested layouts stay)."""
    for _, widget in placed_widgets(layout):
        if widget in keep:
            continue
        layout.removeWidget(widget)
        widget.hide()
        widget.deleteLater()

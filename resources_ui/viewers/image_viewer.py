"""The image viewer: fit, actual size, zoom and pan, refusing decompression bombs and SVGs that
reach outside themselves up front."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QImageReader, QPainter, QPixmap, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import (
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.content import image_dimensions
from desktop_app.core.image_limits import ImageTooLarge, check_decoded_size
from desktop_app.core.svg_check import svg_problem
from resources_ui.viewers.toolbar import tool_button

THUMBNAIL_MAX_PIXELS: Final = 16_000_000
"""Thumbnails are decoded on the GUI thread; past this a card shows none."""
ZOOM_STEP: Final = 1.25
MIN_ZOOM: Final = 0.02
MAX_ZOOM: Final = 64.0


class ImageError(ValueError):
    """The bytes cannot (or must not) be decoded into an image."""


def decode_image(data: bytes) -> QImage:
    """Decode after checking the header's size; safe to call from a worker thread (QImage only)."""
    reader, _buffer = _checked_reader(data)
    image = reader.read()
    if image.isNull():
        raise ImageError(f"This image could not be decoded: {reader.errorString()}")
    return image


def decode_thumbnail(data: bytes, width: int, height: int) -> QImage | None:
    """The image decoded straight to at most `width`×`height` (for a card); None if it must not or cannot be."""
    try:
        reader, _buffer = _checked_reader(data)
    except ImageError:
        return None
    size = reader.size()
    if not size.isValid() or size.width() * size.height() > THUMBNAIL_MAX_PIXELS:
        return None  # not worth a stall of the window for a thumbnail; "Open" shows it
    if size.width() > width or size.height() > height:
        reader.setScaledSize(size.scaled(width, height, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    return None if image.isNull() else image


def _checked_reader(data: bytes) -> tuple[QImageReader, QBuffer]:
    """A reader for `data` whose claimed size is within the shared limit (`core/image_limits`).

    The size comes from our own header parser for PNG/JPEG/GIF/WebP and from Qt's reader for
    the rest; neither decodes pixels, so a 30000×30000 header costs nothing to refuse. An SVG,
    whatever type the server claimed, is drawn only if it is self-contained (`core/svg_check`).
    The buffer is returned too: the reader reads from it and must not outlive it.
    """
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    kind = bytes(reader.format().data()).lower()
    if kind in (b"svg", b"svgz") and (problem := svg_problem(data, compressed=kind == b"svgz")) is not None:
        raise ImageError(f"{problem}.")
    dims = image_dimensions(data)
    if dims is None:
        size = reader.size()
        dims = (size.width(), size.height()) if size.isValid() else None
    if dims is not None:
        try:
            check_decoded_size(*dims)
        except ImageTooLarge as exc:
            raise ImageError(str(exc)) from None
    return reader, buffer


def _checkerboard() -> QBrush:
    tile = QPixmap(16, 16)
    tile.fill(QColor("#ffffff"))
    painter = QPainter(tile)
    painter.fillRect(0, 0, 8, 8, QColor("#e4e4e4"))
    painter.fillRect(8, 8, 8, 8, QColor("#e4e4e4"))
    painter.end()
    return QBrush(tile)


class _View(QGraphicsView):
    """Pans by dragging; Ctrl+wheel zooms around the cursor; re-fits on resize in fit mode."""

    def __init__(self, owner: ImageViewer) -> None:
        super().__init__()
        self._owner = owner
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setBackgroundBrush(self.palette().mid())

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier and event.angleDelta().y():
            (self._owner.zoom_in if event.angleDelta().y() > 0 else self._owner.zoom_out)()
            event.accept()
            return
        super().wheelEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._owner.fitting:
            self._owner.fit()


class ImageViewer(QWidget):
    """One image, fitted to the view until the user zooms."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("imageViewer")
        self._scene = QGraphicsScene(self)
        self._backdrop = QGraphicsRectItem()
        self._backdrop.setBrush(_checkerboard())
        self._backdrop.setPen(Qt.PenStyle.NoPen)
        self._item = QGraphicsPixmapItem()
        self._scene.addItem(self._backdrop)
        self._scene.addItem(self._item)
        self.view = _View(self)
        self.view.setScene(self._scene)
        self._fitting = True
        self._zoom = 1.0

        self.fit_button = tool_button("Fit", "Fit the image to the view", self.fit)
        self.actual_button = tool_button("100%", "Actual size", self.actual_size)
        self.zoom_out_button = tool_button("−", "Zoom out (Ctrl+wheel)", self.zoom_out)
        self.zoom_in_button = tool_button("+", "Zoom in (Ctrl+wheel)", self.zoom_in)
        self.info = QLabel()
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        for widget in (self.fit_button, self.actual_button, self.zoom_out_button, self.zoom_in_button):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(self.info)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.view)

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def fitting(self) -> bool:
        return self._fitting

    @property
    def image_size(self) -> tuple[int, int]:
        pixmap = self._item.pixmap()
        return pixmap.width(), pixmap.height()

    def set_image(self, image: QImage) -> None:
        pixmap = QPixmap.fromImage(image)
        self._item.setPixmap(pixmap)
        rect = QRectF(pixmap.rect())
        self._backdrop.setRect(rect)
        self._scene.setSceneRect(rect)
        self.fit()

    def fit(self) -> None:
        width, height = self.image_size
        viewport = self.view.viewport().size()
        if width and height and viewport.width() > 1 and viewport.height() > 1:
            self._apply(min((viewport.width() - 4) / width, (viewport.height() - 4) / height))
        self._fitting = True

    def actual_size(self) -> None:
        self._apply(1.0)

    def zoom_in(self) -> None:
        self._apply(min(MAX_ZOOM, self._zoom * ZOOM_STEP))

    def zoom_out(self) -> None:
        self._apply(max(MIN_ZOOM, self._zoom / ZOOM_STEP))

    def _apply(self, zoom: float) -> None:
        self._fitting = False
        self._zoom = zoom
        # Enlarged pixels stay crisp (it is usually a small icon or diagram); reductions are smoothed.
        mode = Qt.TransformationMode.FastTransformation if zoom > 1 else Qt.TransformationMode.SmoothTransformation
        self._item.setTransformationMode(mode)
        self.view.resetTransform()
        self.view.scale(zoom, zoom)
        width, height = self.image_size
        self.info.setText(f"{width:,}×{height:,} px · {round(zoom * 100)}%")

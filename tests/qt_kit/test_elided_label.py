"""An elided label given the width it asks for shows its whole text, and a new text is laid out anew
even when what it shows (nothing, at no width) did not change."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.qt_kit.elided_label import ElidedLabel

URI = "demo://resource/a/rather/long/address/that/ends/in/W"


def test_the_width_it_asks_for_shows_the_whole_text_and_a_new_text_is_laid_out(qtbot: QtBot) -> None:
    row = QWidget()
    qtbot.addWidget(row)
    label = ElidedLabel()
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    layout = QHBoxLayout(row)
    layout.addWidget(label)
    layout.addStretch(1)
    row.resize(900, 40)
    row.show()
    qtbot.waitUntil(lambda: row.isVisible())
    assert QLabel.text(label) == ""

    label.setText(URI)  # at no width it showed nothing and still shows nothing: only its wish changed
    qtbot.waitUntil(lambda: label.width() == label.sizeHint().width(), timeout=5000)
    assert QLabel.text(label) == URI, "given exactly what it asked for, nothing is cut"
    assert label.toolTip() == ""

    label.resize(label.width() // 2, label.height())
    assert QLabel.text(label) != URI and "…" in QLabel.text(label)
    assert URI in label.toolTip(), "cut: the whole text is in its tooltip"

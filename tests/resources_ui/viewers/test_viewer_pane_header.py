"""The viewer's header at any width: the type and size are never cut, a URI longer than the room is
shortened in the middle (whole in its tooltip), and the server's words stay plain text."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktop_app.core.content import ResourceContent
from desktop_app.core.resource_ref import ResourceRef
from resources_ui.viewers.viewer_header import ViewerHeader

LONG_URI = "fixture://" + "/".join(f"folder-{n}" for n in range(12)) + "/the-end.pdf"


def test_type_and_size_stay_whole_and_only_a_long_uri_is_shortened(qtbot: QtBot) -> None:
    header = ViewerHeader()
    qtbot.addWidget(header)
    header.show()
    pressed: list[str] = []
    header.reload_requested.connect(lambda: pressed.append("reload"))
    header.attach_requested.connect(lambda: pressed.append("attach"))

    header.show_ref(None)
    assert header.title.text() == "No resource selected" and not header.attach_button.isEnabled()
    header.resize(340, header.sizeHint().height())  # a narrow viewer dock: the title is not cut
    assert header.reload_button.isHidden() and header.attach_button.isHidden()
    header.show_ref(ResourceRef("fx", LONG_URI, "<b>A report</b>", "application/pdf"))
    assert header.reload_button.isVisible() and header.attach_button.isVisible()
    assert header.title.text() == "<b>A report</b>" and header.title.sizeHint().height() < 100
    header.describe(ResourceContent(LONG_URI, "application/pdf", data=b"%PDF-" + b"x" * 2043))
    assert header.details.text() == " · application/pdf · 2.0 KB"

    for width in (1400, 320, 240):
        header.resize(width, header.sizeHint().height())
        qtbot.waitUntil(lambda width=width: header.width() == width)
        header.layout().activate()
        details = header.details
        assert details.fontMetrics().horizontalAdvance(details.text()) <= details.width(), f"details cut at {width}"
        assert header.meta.geometry().right() < details.geometry().left() + 1
        assert details.geometry().left() - header.meta.geometry().right() < 4, "the details follow the URI"
        shown = QLabel.text(header.meta)
        if width == 1400:
            assert shown == LONG_URI and header.meta.toolTip() == ""
        else:
            assert "…" in shown and shown.startswith("fix") and shown.endswith("pdf"), "cut in the middle"
            assert LONG_URI in header.meta.toolTip()

    header.set_parts(["Part 1 of 2 · text/plain", "Part 2 of 2 · image/png"], 1)
    assert header.part_box.isVisibleTo(header) and header.part_box.currentIndex() == 1
    header.set_parts([], 0)
    assert not header.part_box.isVisibleTo(header)
    header.set_note("Note: the bytes are not what the server said.")
    assert header.note.isVisibleTo(header)
    header.reload_button.click()
    header.attach_button.click()
    assert pressed == ["reload", "attach"]
    header.set_actionable(False)
    assert not header.reload_button.isEnabled() and not header.attach_button.isEnabled()

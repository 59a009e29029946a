"""An app view's header in a narrow column: its buttons go to a line of their own instead of past the
view's edge, so neither they nor the page beside them are cut."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication

from desktop_app.core.apps.session import SessionState
from tests.hosting import eventually
from tests.ui.apps.app_view_run import run
from tests.ui.apps.harness import Env

NARROW = 300


def test_a_narrow_view_keeps_its_header_buttons_inside(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view()
        await eventually(lambda: view.session.state is SessionState.READY, what="the view ready")
        assert view.title.text() == "probe"
        assert view.minimumSizeHint().width() <= NARROW, "the header asks for no more than its widest part"
        view.resize(NARROW, 420)
        await eventually(lambda: view.width() == NARROW, what="the narrow view")
        await eventually(lambda: view.pop_button.y() > view.title.y(), what="the buttons on a line of their own")
        for button in (view.viewer_button, view.pop_button):
            right = button.mapTo(view, QPoint(button.width(), 0)).x()
            assert button.isVisible() and right <= view.width(), f"{button.text()} inside the view"

        view.resize(560, 420)
        await eventually(lambda: view.pop_button.y() == view.title.y(), what="one line again when there is room")

    run(qapp, scenario)

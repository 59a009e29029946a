"""Completion lists in argument forms: Enter picks a highlighted value, and only submits with no list open."""

from __future__ import annotations

from typing import Any

import pytest
import shiboken6
from mcp_types import ResourceTemplateReference
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QApplication

from desktop_app.qt_kit.completing_fields import CompletingFields, FieldSpec
from resources_ui.template_form import TemplateForm
from resources_ui.tree_entries import EntryKind, make_entry
from tests.hosting import eventually
from tests.servers.fixture_server import ITEM_TEMPLATE, build_fixture_server
from tests.window_kit import inprocess_bridge, run_in_qt

# The offscreen platform cannot raise or grab for the completion popup; that is not ours to fix.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")


def test_enter_on_a_highlighted_completion_picks_it_and_does_not_submit(qapp: QApplication, qtbot: Any) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        fields = CompletingFields(bridge)
        submitted: list[bool] = []
        fields.submitted.connect(lambda: submitted.append(True))
        try:
            fields.show()
            fields.set_fields("fx", ResourceTemplateReference(uri=ITEM_TEMPLATE), [FieldSpec("item_id")])
            edit = fields.field("item_id")
            shown: list[list[str]] = []
            fields.completions_shown.connect(lambda _name, values: shown.append(values))
            fields.request_completions("item_id")
            await eventually(lambda: shown, what="the server's completions")
            popup = edit.completer().popup()
            edit.completer().complete()  # as when the field has focus
            await eventually(lambda: popup.isVisible(), what="the completion list")
            popup.setCurrentIndex(popup.model().index(1, 0))  # as the Down arrow would
            qtbot.keyClick(popup, Qt.Key.Key_Return)
            assert edit.text() == "apricot"
            assert not popup.isVisible()
            assert submitted == [], "picking a completion must not submit the form"
            qtbot.keyClick(edit, Qt.Key.Key_Return)
            assert submitted == [True], "with no list open, Enter submits"
        finally:
            await bridge.host.stop_all()
            shiboken6.delete(fields)  # now, not whenever the garbage collector gets to its cycles

    run_in_qt(qapp, scenario())


def test_enter_with_the_list_open_but_nothing_highlighted_only_closes_it(qapp: QApplication, qtbot: Any) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        form = TemplateForm(bridge)
        opened: list[object] = []
        form.open_requested.connect(opened.append)
        try:
            form.show()
            form.set_template(make_entry(EntryKind.TEMPLATE, "fx", ITEM_TEMPLATE, "item", mime_type="text/plain"))
            edit = form.field("item_id")
            edit.setText("ap")
            shown: list[list[str]] = []
            form.completions_shown.connect(lambda _name, values: shown.append(values))
            form.fields.request_completions("item_id")
            await eventually(lambda: shown, what="the server's completions")
            popup = edit.completer().popup()
            edit.completer().complete()  # as when the field has focus
            await eventually(lambda: popup.isVisible(), what="the completion list")
            popup.setCurrentIndex(QModelIndex())  # the user arrowed away from every value
            qtbot.keyClick(popup, Qt.Key.Key_Return)
            assert not popup.isVisible() and edit.text() == "ap" and opened == []
            qtbot.keyClick(edit, Qt.Key.Key_Return)
            assert [ref.uri for ref in opened] == ["fixture://items/ap"], "with the list closed, Enter opens"  # type: ignore[attr-defined]
        finally:
            await bridge.host.stop_all()
            shiboken6.delete(form)  # now, not whenever the garbage collector gets to its cycles

    run_in_qt(qapp, scenario())

"""An app view whose turn was folded out of a long chat is closed, a still of it shown in its card when the
turn is drawn again, and quitting afterwards closes cleanly (no page deleted with its card or after its profile)."""

from __future__ import annotations

from tests.ui.apps.quit_program import assert_closes_cleanly


def test_an_app_view_folded_out_is_closed_leaves_a_still_and_quitting_closes_cleanly() -> None:
    assert_closes_cleanly("tests.ui.conversation.quit_after_folding_an_app")

"""Quitting right after leaving a chat with an app view: the views are torn down before their profiles go."""

from __future__ import annotations

from tests.ui.apps.quit_program import assert_closes_cleanly


def test_quitting_at_once_after_a_new_chat_closes_the_app_views_first() -> None:
    assert_closes_cleanly("tests.ui.apps.quit_after_new_chat")

"""The app-view guard's own paths, each reached by a hostile view through the real page and iframe.

The iframe sandbox and the CSP stop most of what a view tries before the guard sees it; these
are the ways past them that remain: a new window opened from the context menu, a frame loaded
by a declared frame, a device request, and a second use of a device or of the clipboard the user
allowed once.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication, QMenu

from desktop_app.core.apps.questions import AppPermissionQuestion
from desktop_app.core.apps.session import SessionState
from tests.hosting import eventually
from tests.servers.app_server import GUARDED_URI
from tests.ui.apps.app_view_run import run
from tests.ui.apps.harness import Env


def refused_windows(env: Env) -> int:
    """How many new windows the guard refused (the server's log has each; the view shows one line)."""
    log = env.bridge.host.connection("apps").log
    return sum("Blocked a new window: apps cannot open windows." in entry.text for entry in log)


async def choose_from_context_menu(web: QWebEngineView, text: str) -> None:
    """Right-click the middle of the view's link and choose `text`, as the user would."""
    QTest.mouseClick(web.focusProxy(), Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, QPoint(40, 40))
    await eventually(lambda: _menu_item(text) is not None, what=f"the context menu's {text!r}")
    found = _menu_item(text)
    assert found is not None
    menu, action = found
    action.trigger()
    menu.close()


def _menu_item(text: str) -> tuple[QMenu, QAction] | None:
    """The open context menu and its item called `text`."""
    menus = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible()]
    return next(((menu, a) for menu in menus for a in menu.actions() if a.text() == text), None)


@pytest.mark.qt_log_ignore("This plugin does not support grabbing")  # the offscreen menu's popup
def test_a_link_opened_in_a_new_window_from_the_menu_reaches_no_window(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view()
        url = f"{env.undeclared.origin}/new-window"
        view.tool_input({"steps": [f"anchor:{url}"]})  # a link over the whole view
        await env.wait_report(f"anchor:{url}")
        web = view.findChild(QWebEngineView)
        for number, item in enumerate(("Open link in new window", "Open link in new tab"), start=1):
            await choose_from_context_menu(web, item)
            await eventually(lambda n=number: refused_windows(env) == n, what=f"the window of {item!r} refused")
        assert [w for w in QApplication.topLevelWidgets() if isinstance(w, QWebEngineView)] == []
        assert env.undeclared.hits == []
        assert view.session.state is SessionState.READY

    run(qapp, scenario)


def test_frames_load_from_declared_origins_only(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        declared, undeclared = env.declared.origin, env.undeclared.origin
        steps = [
            f"subframe:{declared}/plain",
            f"subframe:{declared}/framing?to={declared}/nested",
            f"subframe:{declared}/framing?to={undeclared}/nested",  # the declared frame frames another origin
            f"subframe:{declared}/redirect?to={undeclared}/redirected",
            f"subframe:{undeclared}/direct",
        ]
        view = env.view(GUARDED_URI)
        view.tool_input({"steps": steps})
        await env.wait_report("done")
        assert env.report(steps[0])["detail"] == "loaded"  # type: ignore[index]
        await eventually(lambda: "/nested" in env.declared.hits, what="the declared frame's own frame")
        await eventually(
            lambda: f"Blocked the app's frame from loading {undeclared}/nested." in view.notices,
            what="the guard refusing the nested frame",
        )
        assert env.undeclared.hits == []
        assert view.session.state is SessionState.READY

    run(qapp, scenario)


def test_a_permission_the_view_did_not_declare_is_refused_without_asking(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        env.answers[AppPermissionQuestion] = True  # the user would say yes: they are never asked
        names = ("microphone", "camera+microphone", "geolocation", "notifications")
        view = env.view(GUARDED_URI)  # declares the camera only
        view.tool_input({"steps": [f"ask:{name}" for name in names]})
        await env.wait_report("done")
        for name in names:
            report = env.report(f"ask:{name}")
            assert report is not None and report["detail"] not in ("granted", "no answer"), report
        assert env.questions(AppPermissionQuestion) == []
        assert "Refused microphone: the app did not declare it needs it." in view.notices
        assert "Refused a browser permission apps cannot have." in view.notices

    run(qapp, scenario)


def test_a_permission_the_user_allows_serves_that_use_only(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        env.answers[AppPermissionQuestion] = [True, False]
        view = env.view(GUARDED_URI)
        view.tool_input({"steps": ["camera-twice:"]})
        report = await env.wait_report("camera-twice:")
        # Asked again for the second use, which the user refused; the use they allowed goes on.
        assert report["detail"] == {"second": "refused", "first": "live"}, report
        asked = env.questions(AppPermissionQuestion)
        assert [(q.permission, q.app, q.call_id) for q in asked] == [("camera", GUARDED_URI, "call-1")] * 2
        assert "Refused camera: you did not allow it." in view.notices

    run(qapp, scenario)


def test_each_clipboard_write_is_asked_and_reading_stays_shut(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        env.answers[AppPermissionQuestion] = [True, False]
        view = env.view(GUARDED_URI)  # declares clipboardWrite
        await env.wait_report("initialized")
        steps = ["ask:clipboard-write", "ask:clipboard-write", "ask:clipboard-read"]
        view.tool_input({"steps": steps})
        web = view.findChild(QWebEngineView)
        QTest.mouseClick(web.focusProxy(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(60, 60))
        await env.wait_report("done")
        first, second, read = (report["detail"] for report in env.reports if report["step"].startswith("ask:"))
        assert first == "granted"
        assert "Write permission denied" in second  # asked again, and refused
        assert "permissions policy" in read  # not declared: the frame may not even ask
        assert [q.permission for q in env.questions(AppPermissionQuestion)] == ["clipboard", "clipboard"]

    run(qapp, scenario)

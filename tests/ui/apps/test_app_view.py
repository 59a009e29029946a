"""MCP App views in real QtWebEngine: the protocol end to end, the sandbox, and bad views contained."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from desktop_app.core.apps.questions import AppPermissionQuestion, OpenLinkQuestion
from desktop_app.core.apps.session import SessionState
from desktop_app.core.chat.approval import ApprovalReply, DecidedBy, Decision, Requester
from tests.hosting import eventually
from tests.servers.app_server import HUGE_URI, NOTE_TEXT, NOTE_URI, PROBE_URI, SILENT_URI
from tests.ui.apps.app_view_run import run
from tests.ui.apps.harness import Env, widget_text


def test_a_view_calls_a_tool_reads_a_resource_opens_a_link_and_sends_a_message(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        env.answers[OpenLinkQuestion] = True
        view = env.view()
        view.tool_input(
            {"steps": ["call:bump", f"read:{NOTE_URI}", "link:https://example.com/docs", "message:hello", "context:c1"]}
        )
        view.tool_result({"content": [{"type": "text", "text": "ok"}], "structuredContent": {"steps": 5}})
        initialized = await env.wait_report("initialized")
        assert initialized["detail"]["tool"] == "probe" and initialized["detail"]["platform"] == "desktop"
        assert initialized["detail"]["protocol"] == "2026-01-26"
        await env.wait_report("done")
        assert env.report("call:bump")["detail"]["content"][0]["text"] == "bumped 1"  # type: ignore[index]
        assert env.report(f"read:{NOTE_URI}")["detail"]["contents"][0]["text"] == NOTE_TEXT  # type: ignore[index]
        assert env.report("link:https://example.com/docs")["ok"] is True  # type: ignore[index]
        assert env.opened == ["https://example.com/docs"]
        [link] = env.questions(OpenLinkQuestion)
        assert (link.server, link.call_id) == ("apps", "call-1")
        assert env.chat.messages == ["hello"] and env.chat.contexts == ["c1"]
        [approval] = env.approver.requests
        assert approval.tool == "bump" and approval.app == PROBE_URI and approval.requester is Requester.APP
        assert (await env.wait_report("result"))["detail"] == {"steps": 5}
        assert view.session.app_name == "probe" and "probe" in view.title.text()
        log = [entry.text for entry in env.bridge.host.connection("apps").log if entry.source == "app"]
        assert any("tools/call bump" in line for line in log)
        assert any(line.startswith(f"{PROBE_URI}: CSP: default-src 'none'") for line in log)

    run(qapp, scenario)


def test_the_approval_gate_holds_a_views_tool_call(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        env.approver.replies.append(ApprovalReply(Decision.DENY, by=DecidedBy.USER))
        view = env.view()
        view.tool_input({"steps": ["call:bump", "call:model_only", "call:plain"]})
        await env.wait_report("done")
        assert env.report("call:bump")["detail"] == "The user declined to run 'bump'; it was not called."  # type: ignore[index]
        assert "not callable by apps" in env.report("call:model_only")["detail"]  # type: ignore[index]
        assert env.report("call:plain")["ok"] is True  # type: ignore[index]  (default visibility: model and app)
        assert [r.tool for r in env.approver.requests] == ["bump", "plain"]

    run(qapp, scenario)


def test_csp_keeps_a_view_to_its_declared_origins(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        declared, undeclared = env.declared.origin, env.undeclared.origin
        view = env.view()
        view.tool_input(
            {"steps": [f"fetch:{declared}/allowed", f"fetch:{undeclared}/secret", f"frame:{undeclared}/away"]}
        )
        await env.wait_report("done")
        assert env.report(f"fetch:{declared}/allowed")["detail"] == 200  # type: ignore[index]
        assert env.report(f"fetch:{undeclared}/secret")["ok"] is False  # type: ignore[index]
        await eventually(lambda: any("Blocked a frame of" in n for n in view.notices), what="the frame refused")
        assert env.declared.hits == ["/allowed"]
        assert env.undeclared.hits == []  # neither the fetch nor the frame's navigation reached it
        assert any(f"Blocked a connection to {undeclared}/secret" in n for n in view.notices)
        assert "Blocked a connection" in widget_text(view)

    run(qapp, scenario)


def test_the_interceptor_refuses_what_the_csp_would_let_through(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        from desktop_app.ui.apps.profiles import server_web

        view = env.view()
        await env.wait_report("initialized")
        # As if the CSP were wrong: the view's declared origin stays in its CSP but leaves the allow-list.
        server_web("apps").guard.allow(view.view_id, ())
        view.tool_input({"steps": [f"fetch:{env.declared.origin}/guarded"]})
        await env.wait_report("done")
        assert env.report(f"fetch:{env.declared.origin}/guarded")["ok"] is False  # type: ignore[index]
        assert env.declared.hits == []
        assert any(f"Blocked a request to {env.declared.origin}/guarded" in n for n in view.notices)

    run(qapp, scenario)


def test_popups_and_navigating_away_are_refused_with_a_reason(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view()
        view.tool_input({"steps": ["popup:https://example.com/", "top:https://example.com/"]})
        await env.wait_report("done")
        assert env.report("popup:https://example.com/")["detail"] == "null"  # type: ignore[index]
        await eventually(lambda: len(view.notices) >= 2)
        assert any("pop-up" in n for n in view.notices)
        assert any("navigate away" in n for n in view.notices)
        assert view.session.state is SessionState.READY  # contained, still working

    run(qapp, scenario)


def test_permissions_are_asked_and_denied_by_default(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view()
        view.tool_input({"steps": ["geolocation:"]})
        await env.wait_report("done")
        assert env.report("geolocation:")["detail"] == "denied: 1"  # type: ignore[index]
        [question] = env.questions(AppPermissionQuestion)
        assert (question.permission, question.app, question.call_id) == ("geolocation", PROBE_URI, "call-1")
        assert any("Refused geolocation" in n for n in view.notices)

    run(qapp, scenario)


def test_a_view_that_never_initializes_is_closed_with_a_reason(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view(SILENT_URI, start_timeout=1.0)
        await eventually(lambda: view.session.state is SessionState.CLOSED, timeout=30)
        assert "never completed the MCP Apps handshake" in view.reason.text()
        assert view.stack.currentWidget() is view.reason

    run(qapp, scenario)


def test_a_huge_document_is_refused_before_it_renders(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view(HUGE_URI)
        await eventually(lambda: view.session.state is SessionState.CLOSED, timeout=30)
        assert "shows app documents of up to 5.0 MB" in view.reason.text()
        assert view.document is None

    run(qapp, scenario)


def test_a_flooding_view_is_stopped_and_garbage_is_answered(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view()
        view.tool_input({"steps": ["garbage:", "flood:5000"]})
        await eventually(lambda: view.session.state is SessionState.CLOSED, timeout=30)
        assert "messages in a burst" in view.reason.text()
        log = [entry.text for entry in env.bridge.host.connection("apps").log if entry.source == "app"]
        assert any("malformed message" in line for line in log)

    run(qapp, scenario)


def test_size_changes_theme_and_teardown(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view()
        initialized = await env.wait_report("initialized")
        background = view.palette().color(view.palette().ColorRole.Base).name()
        assert initialized["detail"]["background"] == background
        view.tool_input({"steps": ["resize:380"]})
        await eventually(lambda: view.stack.height() == 440, what="the view grown to its reported height")
        await view.dispose("closed by the test")
        assert env.report("teardown") is not None
        assert view.session.state is SessionState.CLOSED

    run(qapp, scenario)

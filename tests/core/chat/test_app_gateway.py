"""A view's requests through the gateway, against real in-process servers: gated, scoped, asked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from desktop_app.core.apps.questions import OpenLinkQuestion
from desktop_app.core.apps.view_requests import AppRefusal
from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.chat.app_gateway import AppGateway
from desktop_app.core.chat.approval import ApprovalPolicy, ApprovalReply, DecidedBy, Decision, Requester
from desktop_app.core.extensions.apps_meta import ViewOrigin
from desktop_app.core.host import ServerHost
from tests.hosting import eventually, serving
from tests.llm_server import RecordingApprover
from tests.servers.app_server import NOTE_TEXT, NOTE_URI, PROBE_URI, build_app_server
from tests.servers.fixture_server import build_fixture_server

pytestmark = pytest.mark.anyio
ORIGIN = ViewOrigin(PROBE_URI, "call-7")


class Chat:
    def __init__(self, busy: bool = False, taint: str | None = None) -> None:
        self.busy = busy
        self.tainted = taint
        self.messages: list[str] = []
        self.contexts: list[str] = []
        self.results: list[tuple[str, ViewOrigin, str, str, str, bool]] = []

    def chat_id(self) -> str:
        return "chat-1"

    def taint(self) -> str | None:
        return self.tainted

    def send_app_message(self, origin: ViewOrigin, server: str, text: str) -> str | None:
        if self.busy:
            return "the conversation is busy"
        self.messages.append(text)
        return None

    def set_app_context(self, origin: ViewOrigin, server: str, text: str) -> None:
        self.contexts.append(text)

    def app_tool_result(self, chat: str, origin: ViewOrigin, server: str, tool: str, text: str, is_error: bool) -> None:
        self.results.append((chat, origin, server, tool, text, is_error))


@pytest.fixture
async def host() -> AsyncIterator[ServerHost]:
    servers = {"apps": build_app_server(), "fx": build_fixture_server()}
    async with serving(servers) as host:
        yield host


def gateway(
    host: ServerHost, approver: RecordingApprover, chat: Chat | None = None, opened: list[str] | None = None
) -> AppGateway:
    def open_url(url: str) -> bool:
        if opened is not None:
            opened.append(url)
        return True

    return AppGateway(
        host,
        "apps",
        ORIGIN,
        policy=ApprovalPolicy(approver),
        chat=chat or Chat(),
        open_url=open_url,
    )


async def test_a_views_tool_call_passes_the_same_approval_and_says_the_app_asks(host: ServerHost) -> None:
    approver = RecordingApprover()
    chat = Chat()
    result = await gateway(host, approver, chat).call_tool("bump", {})
    assert result["content"][0]["text"] == "bumped 1"
    assert "resultType" not in result
    assert chat.results == [("chat-1", ORIGIN, "apps", "bump", "bumped 1", False)]  # the chat keeps what it returned
    [request] = approver.requests
    assert (request.server, request.tool, request.requester, request.app) == ("apps", "bump", Requester.APP, PROBE_URI)
    assert request.call_id == ORIGIN.call_id  # asked under the tool card that shows the view


async def test_a_tainted_chat_pauses_the_views_allowance_for_tools_that_are_not_read_only(host: ServerHost) -> None:
    approver = RecordingApprover()
    approver.replies.append(ApprovalReply(Decision.ALLOW_CHAT, by=DecidedBy.USER))
    chat = Chat()
    view = gateway(host, approver, chat)
    await view.call_tool("bump", {})
    chat.tainted = "read a page from the open world"
    await view.call_tool("bump", {})
    assert len(approver.requests) == 2
    assert approver.requests[-1].rule_paused and approver.requests[-1].taint == chat.tainted


async def test_allow_for_this_chat_covers_later_calls_from_the_view(host: ServerHost) -> None:
    approver = RecordingApprover()
    approver.replies.append(ApprovalReply(Decision.ALLOW_CHAT, by=DecidedBy.USER))
    view = gateway(host, approver)
    await view.call_tool("bump", {})
    await view.call_tool("bump", {})
    assert len(approver.requests) == 1


async def test_declined_and_out_of_scope_calls_are_refused(host: ServerHost) -> None:
    approver = RecordingApprover()
    approver.replies.append(ApprovalReply(Decision.DENY, by=DecidedBy.USER))
    chat = Chat()
    view = gateway(host, approver, chat)
    with pytest.raises(AppRefusal, match="declined to run 'bump'"):
        await view.call_tool("bump", {})
    with pytest.raises(AppRefusal, match="not callable by apps"):
        await view.call_tool("model_only", {})
    with pytest.raises(AppRefusal, match="only its own server's tools; 'echo' belongs to 'fx'"):
        await view.call_tool("echo", {"text": "hi"})
    with pytest.raises(AppRefusal, match="has no tool named 'nothing'"):
        await view.call_tool("nothing", {})
    with pytest.raises(AppRefusal, match="do not match the schema"):
        await view.call_tool("probe", {"steps": "not a list"})
    assert len(approver.requests) == 1  # nothing out of scope ever reaches the user
    assert chat.results == []  # nothing ran: the declined call is the approval's record alone


async def test_resources_are_read_from_the_views_own_server(host: ServerHost) -> None:
    result = await gateway(host, RecordingApprover()).read_resource(NOTE_URI)
    assert result["contents"][0]["text"] == NOTE_TEXT
    with pytest.raises(AppRefusal):
        await gateway(host, RecordingApprover()).read_resource("fixture://long")  # the other server's


async def test_links_open_only_after_the_user_agrees(host: ServerHost) -> None:
    answers = {"https://yes.example/": True, "https://no.example/": False}
    asker = ScriptedAsker(lambda q: answers[q.url])
    host.questions.asker = asker
    opened: list[str] = []
    view = gateway(host, RecordingApprover(), opened=opened)
    await view.open_link("https://yes.example/")
    with pytest.raises(AppRefusal, match="denied by user"):
        await view.open_link("https://no.example/")
    assert opened == ["https://yes.example/"]
    questions: list[Question[Any]] = asker.asked
    assert all(isinstance(q, OpenLinkQuestion) for q in questions)
    assert (questions[0].server, questions[0].call_id, questions[0].app) == ("apps", "call-7", PROBE_URI)


async def test_messages_and_context_reach_the_chat(host: ServerHost) -> None:
    chat = Chat()
    view = gateway(host, RecordingApprover(), chat)
    await view.send_message("summarise my notes")
    await view.update_model_context("the user selected note 2")
    assert chat.messages == ["summarise my notes"] and chat.contexts == ["the user selected note 2"]
    chat.busy = True
    with pytest.raises(AppRefusal, match="busy"):
        await view.send_message("again")


async def test_view_activity_is_logged_in_the_servers_log(host: ServerHost) -> None:
    gateway(host, RecordingApprover()).log("info", "app → host tools/call bump")
    entry = host.connection("apps").log[-1]
    assert (entry.source, entry.level) == ("app", "info")
    assert entry.text == f"{PROBE_URI}: app → host tools/call bump"


async def test_a_views_link_is_asked_as_the_browser_reads_it(host: ServerHost) -> None:
    """A look-alike host reaches the card in its xn-- form with a warning; a misreadable one is never asked."""
    asker = ScriptedAsker(lambda q: True)
    host.questions.asker = asker
    opened: list[str] = []
    view = gateway(host, RecordingApprover(), opened=opened)
    await view.open_link("https://аpple.com/signin")  # the first letter is Cyrillic
    with pytest.raises(AppRefusal, match="not offered"):
        await view.open_link("https://evil.example\\@apple.com/")
    [question] = asker.asked
    assert isinstance(question, OpenLinkQuestion)
    assert question.url == opened[0] == "https://xn--pple-43d.com/signin"
    assert any("look-alike" in warning for warning in question.warnings)


async def test_a_tool_the_user_switched_off_is_refused_as_such(host: ServerHost) -> None:
    host.set_disabled_tools("apps", ["bump"])
    await eventually(lambda: all(t.name != "bump" for t in host.catalog.servers["apps"].tools), what="the catalog")
    approver = RecordingApprover()
    with pytest.raises(AppRefusal, match="'bump' was switched off by the user"):
        await gateway(host, approver).call_tool("bump", {})
    assert approver.requests == [], "nothing was asked for a tool that cannot run"

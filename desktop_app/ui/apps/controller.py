"""Where MCP App views live: in the tool card of the call that made them, the viewer, or a window.

The controller follows the chat's events: a tool with a view gets one as soon as its arguments
start streaming (so the page is ready by the time the call runs), shown in the call's card once
that exists, fed the input and then the result or the cancellation. The user can move a view to
the viewer pane or a window of its own and back; the view keeps running while it moves. A `ui://`
resource selected in the browser opens as a view in the viewer. QtWebEngine is imported by the
first view, never before. While the organisation's policy switches app views off, none is made:
the tool card and the viewer say so, with the rule (`features.apps`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final

from mcp_types import Tool
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QCloseEvent, QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.chat.app_gateway import AppChat, AppGateway
from desktop_app.core.chat.approval import ApprovalPolicy
from desktop_app.core.chat.events import (
    ChatEvent,
    ToolCallStarted,
    ToolDecision,
    ToolInputPartial,
    ToolResult,
    TurnFinished,
)
from desktop_app.core.extensions.apps_meta import ViewOrigin, ui_resource_uri
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.widgets.plain_text import plain_label

if TYPE_CHECKING:
    from desktop_app.ui.apps.app_view import AppView

log = logging.getLogger(__name__)

DECLINED: Final = "The user declined to run the tool."
STOPPED: Final = "The user stopped the answer before the tool finished."


def _notice(text: str) -> QLabel:
    label = plain_label(text)
    label.setObjectName("appsOff")
    label.setWordWrap(True)
    muted(label)
    return label


class AppSlot(QWidget):
    """A tool card's place for its view: the view itself, or a note saying where it went."""

    def __init__(self, view: AppView, bring_back: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.away = QWidget()
        row = QHBoxLayout(self.away)
        row.setContentsMargins(0, 0, 0, 0)
        self.away_label = QLabel()
        muted(self.away_label)
        self.back = QPushButton("Bring it back here")
        self.back.clicked.connect(bring_back)
        row.addWidget(self.away_label)
        row.addStretch(1)
        row.addWidget(self.back)
        self.away.hide()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 4, 0, 0)
        self._layout.addWidget(self.away)
        self.hold()

    def hold(self) -> None:
        self.away.hide()
        self._layout.addWidget(self.view)
        self.view.set_placement("inline")
        self.view.show()

    def show_away(self, where: str) -> None:
        self.away_label.setText(f"This app is shown {where}.")
        self.away.show()


class AppWindow(QWidget):
    """A view popped out of the conversation; closing the window puts the view back."""

    def __init__(self, view: AppView, on_close: Callable[[AppView], None]) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.view = view
        self._on_close = on_close
        self.setWindowTitle(f"{view.title.text().replace('<b>', '').replace('</b>', '')} — MCP Desk")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(view)
        view.set_placement("window")
        self.resize(720, 640)

    def closeEvent(self, event: QCloseEvent) -> None:
        self._on_close(self.view)
        super().closeEvent(event)


class AppViews(QObject):
    """Creates, feeds and places every view of the window; `close_all` tears them down."""

    def __init__(
        self,
        bridge: CoreBridge,
        conversation: ConversationView,
        *,
        policy: ApprovalPolicy,
        chat: AppChat,
        show_in_viewer: Callable[[ResourceRef, QWidget], None],
        clear_viewer: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._conversation = conversation
        self._policy = policy
        self._chat = chat
        self._show_in_viewer = show_in_viewer
        self._clear_viewer = clear_viewer
        self._by_call: dict[str, AppView] = {}
        self._slots: dict[str, AppSlot] = {}
        self._waiting: set[str] = set()
        self._windows: dict[int, AppWindow] = {}
        self._off_noted: set[str] = set()
        self._in_viewer: AppView | None = None
        self._viewer_owned: AppView | None = None
        self._started = False
        self._closing: set[asyncio.Task[None]] = set()
        """Views being torn down: quitting waits for them before it releases the web profiles."""

    @property
    def views(self) -> list[AppView]:
        found = list(self._by_call.values())
        if self._viewer_owned is not None:
            found.append(self._viewer_owned)
        return found

    def view_for_call(self, call_id: str) -> AppView | None:
        return self._by_call.get(call_id)

    # -- the chat's events -------------------------------------------------------------------

    def on_event(self, event: ChatEvent) -> None:
        """Feed the views: the view appears with the call, its input once the call is allowed to run."""
        if isinstance(event, ToolInputPartial):
            view = self._for_call(event.call_id, event.server, event.tool)
            if view is not None:
                view.tool_input_partial(event.arguments)
        elif isinstance(event, ToolCallStarted) and event.server is not None and event.tool is not None:
            view = self._for_call(event.call_id, event.server, event.tool)
            if view is not None:
                self._place_in_card(event.call_id, view)
                self._waiting.add(event.call_id)
            else:
                self._say_switched_off(event.call_id, event.server, event.tool)
        elif isinstance(event, ToolDecision) and (view := self._by_call.get(event.call_id)) is not None:
            # The input is what runs: the user's edits, not the model's proposal.
            if event.allowed:
                view.tool_input(event.arguments)
            else:
                self._waiting.discard(event.call_id)
                view.tool_cancelled(DECLINED)
        elif isinstance(event, ToolResult) and event.call_id in self._waiting:
            self._waiting.discard(event.call_id)
            view = self._by_call[event.call_id]
            if event.denied:
                view.tool_cancelled(DECLINED)
            elif event.app_result is not None:
                view.tool_result(event.app_result)
            elif view.session.input_sent:
                view.tool_result({"content": [{"type": "text", "text": event.text}], "isError": True})
            else:  # refused before it could run (arguments that do not match the schema)
                view.tool_cancelled(f"The tool did not run: {event.text}")
        elif isinstance(event, TurnFinished) and event.reason in ("cancelled", "error"):
            for call_id in sorted(self._waiting):
                if (view := self._by_call.get(call_id)) is not None:
                    view.tool_cancelled(STOPPED)
            self._waiting.clear()

    def _tool(self, server: str, name: str) -> Tool | None:
        snapshot = self._bridge.host.catalog.servers.get(server)
        return next((t for t in snapshot.tools if t.name == name), None) if snapshot is not None else None

    def switched_off(self) -> str | None:
        """Why no app view is made (the organisation's policy), as the window says it; None: they are on."""
        refusal = self._bridge.host.managed.feature_refusal("apps")
        if refusal is None:
            return None
        text = str(refusal)
        return f"{text[:1].upper()}{text[1:]}."

    def _say_switched_off(self, call_id: str, server: str, name: str) -> None:
        """A tool with a view was called while views are off: its card says why none is shown."""
        off, tool, card = self.switched_off(), self._tool(server, name), self._conversation.card(call_id)
        if off is None or tool is None or ui_resource_uri(tool) is None or card is None or call_id in self._off_noted:
            return
        self._off_noted.add(call_id)
        card.show_app(_notice(f"This tool's app view is not shown. {off}"))

    def _for_call(self, call_id: str, server: str, name: str) -> AppView | None:
        view = self._by_call.get(call_id)
        if view is not None:
            return view
        if self.switched_off() is not None:
            return None
        tool = self._tool(server, name)
        uri = ui_resource_uri(tool) if tool is not None else None
        if tool is None or uri is None:
            return None
        view = self._create(server, ViewOrigin(uri, call_id), tool)
        self._by_call[call_id] = view
        return view

    def _create(self, server: str, origin: ViewOrigin, tool: Tool | None) -> AppView:
        from desktop_app.ui.apps.app_view import AppView  # QtWebEngine loads here, with the first view

        self._started = True
        gateway = AppGateway(
            self._bridge.host,
            server,
            origin,
            policy=self._policy,
            chat=self._chat,
            open_url=lambda url: QDesktopServices.openUrl(url),
        )
        view = AppView(self._bridge, server, origin, gateway, tool=tool)
        view.sig_open_in_viewer.connect(lambda: self.open_in_viewer(view))
        view.sig_pop_out.connect(lambda: self.pop_out(view))
        view.sig_bring_back.connect(lambda: self.bring_back(view))
        return view

    # -- placement -----------------------------------------------------------------------------

    def _place_in_card(self, call_id: str, view: AppView) -> None:
        card = self._conversation.card(call_id)
        if card is None or call_id in self._slots:
            return
        slot = AppSlot(view, lambda: self.bring_back(view))
        self._slots[call_id] = slot
        card.show_app(slot)

    def open_in_viewer(self, view: AppView) -> None:
        self._take_from_window(view)
        self._vacate_viewer()
        self._in_viewer = view
        slot = self._slot_of(view)
        if slot is not None:
            slot.show_away("in the viewer")
        name = view.title.text().replace("<b>", "").replace("</b>", "")
        self._show_in_viewer(ResourceRef(view.server, view.origin.resource_uri, name, None), view)
        view.set_placement("viewer")

    def pop_out(self, view: AppView) -> None:
        if self._in_viewer is view:
            self._in_viewer = None
            self._clear_viewer()
        slot = self._slot_of(view)
        if slot is not None:
            slot.show_away("in its own window")
        window = AppWindow(view, self._window_closed)
        self._windows[id(view)] = window
        window.show()

    def bring_back(self, view: AppView) -> None:
        """Put `view` back in its tool card; one whose card was folded out of the chat is closed instead."""
        if view.origin.call_id is None:
            return  # the viewer's own (a `ui://` resource): it has no card
        slot = self._slot_of(view)
        self._take_from_window(view)
        if self._in_viewer is view:
            self._in_viewer = None
            self._clear_viewer()  # lets go of the view first (`released` then ignores it)
        if slot is not None:
            slot.hold()
        elif self._by_call.pop(view.origin.call_id, None) is not None:
            self._close_later(self._dispose(view), "Closing an app view")

    def release_call(self, call_id: str) -> None:
        """The card of `call_id` was folded out of a long chat: its view is closed (the chat keeps a still
        of it); one shown in the viewer or a window of its own runs on there until that is closed."""
        self._slots.pop(call_id, None)
        self._waiting.discard(call_id)
        self._off_noted.discard(call_id)
        view = self._by_call.get(call_id)
        if view is None or view is self._in_viewer or id(view) in self._windows:
            return
        del self._by_call[call_id]
        view.hide()
        view.setParent(None)
        self._close_later(self._dispose(view), "Closing an app view")

    def released(self, widget: QWidget) -> None:
        """The viewer pane let go of `widget` (it shows something else now)."""
        if self._in_viewer is not None and widget is self._in_viewer:
            view, self._in_viewer = self._in_viewer, None
            self.bring_back(view)
        elif self._viewer_owned is not None and widget is self._viewer_owned:
            owned, self._viewer_owned = self._viewer_owned, None
            self._close_later(self._dispose(owned), "Closing an app view")

    def view_for_resource(self, ref: ResourceRef) -> QWidget:
        """A view of a `ui://` resource selected in the browser (no tool call, so no input or result)."""
        if (off := self.switched_off()) is not None:
            return _notice(f"App views are not shown. {off}")
        self._vacate_viewer()
        view = self._create(ref.server, ViewOrigin(ref.uri, None), None)
        view.set_placement("viewer")
        self._viewer_owned = view
        return view

    def _vacate_viewer(self) -> None:
        if self._in_viewer is not None:
            self.bring_back(self._in_viewer)
        if self._viewer_owned is not None:
            owned, self._viewer_owned = self._viewer_owned, None
            self._close_later(self._dispose(owned), "Closing an app view")

    def _window_closed(self, view: AppView) -> None:
        window = self._windows.pop(id(view), None)
        if window is None:
            return
        if view.origin.call_id is None:
            self._close_later(self._dispose(view), "Closing an app view")
        else:
            self.bring_back(view)

    def _take_from_window(self, view: AppView) -> None:
        window = self._windows.pop(id(view), None)
        if window is not None:
            view.setParent(None)
            window.hide()
            window.deleteLater()

    def _slot_of(self, view: AppView) -> AppSlot | None:
        call_id = view.origin.call_id
        return self._slots.get(call_id) if call_id is not None else None

    # -- closing -------------------------------------------------------------------------------

    async def _dispose(self, view: AppView) -> None:
        await view.dispose("the view was closed")
        view.setParent(None)
        view.deleteLater()

    def close_all(self, reason: str) -> asyncio.Task[None]:
        """Take every view out of its place now (the conversation may delete its cards right after),
        then tear them down in the background (each may save its state, briefly)."""
        views = self.views
        if self._in_viewer is not None or self._viewer_owned is not None:
            self._in_viewer = self._viewer_owned = None
            self._clear_viewer()  # lets go of its view (`released` finds nothing to do)
        for view in views:
            self._take_from_window(view)
            view.hide()
            view.setParent(None)
        self._by_call.clear()
        self._slots.clear()
        self._waiting.clear()
        self._off_noted.clear()
        return self._close_later(self._dispose_all(views, reason), "Closing app views")

    def _close_later(self, work: Coroutine[Any, Any, None], what: str) -> asyncio.Task[None]:
        task = self._bridge.spawn(work, what)
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
        return task

    async def _dispose_all(self, views: list[AppView], reason: str) -> None:
        await asyncio.gather(*(v.dispose(reason) for v in views), return_exceptions=True)
        for view in views:
            view.deleteLater()

    async def shut_down(self) -> None:
        """Quitting: close every view and wait for those still closing (a New chat just before), then
        release the web profiles: a page must never outlive its profile."""
        self.close_all("MCP Desk is quitting")
        while self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        if self._started:
            from desktop_app.ui.apps import profiles

            profiles.shut_down()

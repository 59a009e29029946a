"""One MCP App view: a header that says whose app it is, the sandboxed page, and what it was denied.

The widget owns its page and its protocol session for its whole life; the controller only moves
it (a tool card, the viewer, its own window) and feeds it the tool call's input and result. A view
that fails, floods or never starts is replaced by its reason; nothing it does reaches further.
This is the frame: where the view is shown, how tall, and what it was refused; the page inside is
built by `view_page`, and what the view is told of its host by `host_context`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any, Final, Literal

from mcp_types import Tool
from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWebEngineCore import QWebEnginePage
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.apps.document import AppDocument, AppDocumentError, app_document
from desktop_app.core.apps.questions import AppPermissionQuestion
from desktop_app.core.apps.session import START_TIMEOUT, AppSession, SessionState
from desktop_app.core.asks.question import TooManyQuestions
from desktop_app.core.chat.app_gateway import AppGateway
from desktop_app.core.extensions.apps_meta import ViewOrigin
from desktop_app.core.server_errors import describe_error
from desktop_app.qt_kit.elided_label import ElidedLabel
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.theme import coloured, muted, themed
from desktop_app.qt_kit.tokens import SPACE, UNBOUNDED
from desktop_app.ui.apps.guard import AppPage
from desktop_app.ui.apps.host_context import host_context, look_context
from desktop_app.ui.apps.profiles import server_web
from desktop_app.ui.apps.serving import ViewChannel
from desktop_app.ui.apps.view_page import has_painted, open_page, release_page

log = logging.getLogger(__name__)

Placement = Literal["inline", "viewer", "window"]
INLINE_MIN: Final = 80
INLINE_MAX: Final = 640
INLINE_START: Final = 220


class _Grip(QWidget):
    """A bar under an inline view: drag it to make the view taller or shorter."""

    sig_dragged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFixedHeight(8)
        self.setCursor(Qt.CursorShape.SizeVerCursor)
        self.setToolTip("Drag to resize the app")
        self._start: QPoint | None = None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._start = event.globalPosition().toPoint()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._start is not None:
            now = event.globalPosition().toPoint()
            self.sig_dragged.emit(now.y() - self._start.y())
            self._start = now

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._start = None


class AppView(QFrame):
    """The view of one `ui://` resource of one server (for one tool call, or opened on its own)."""

    sig_open_in_viewer = Signal()
    """The user wants this view in the viewer pane."""
    sig_pop_out = Signal()
    """The user wants this view in a window of its own."""
    sig_bring_back = Signal()
    """The user wants the view back where it came from (its tool card)."""
    sig_closed = Signal(str)
    """The view stopped for good; carries the reason shown in its place."""
    sig_ready = Signal()
    """The view completed the handshake (`ui/notifications/initialized`)."""

    def __init__(
        self,
        bridge: CoreBridge,
        server: str,
        origin: ViewOrigin,
        services: AppGateway,
        *,
        tool: Tool | None = None,
        start_timeout: float = START_TIMEOUT,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("appView")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        themed(self, lambda p: f"#appView {{ border: 1px solid {p.accent}; border-radius: {SPACE.radius}px; }}")
        self._bridge = bridge
        self.server = server
        self.origin = origin
        self.tool = tool
        self.view_id = uuid.uuid4().hex
        self.placement: Placement = "inline"
        self.notices: list[str] = []
        self.document: AppDocument | None = None
        self._user_height: int | None = None
        self._reported_height: int | None = None
        self._page: AppPage | None = None
        self._web: QWebEngineView | None = None
        self._channel = ViewChannel(self)
        self.session = AppSession(
            services,
            self._channel.toView.emit,
            self.host_context,
            sandbox={},
            start_timeout=start_timeout,
        )
        self.session.on_size = self._on_size
        self.session.on_closed = self._on_session_closed
        self.session.on_ready = self._on_ready
        self.session.on_teardown_requested = lambda: self.close_view("The app asked to be closed.")
        self._services = services
        self._channel.sig_received.connect(self.session.receive)
        self._channel.sig_oversize.connect(self.session.oversize)
        self._context_timer = QTimer(self, singleShot=True, interval=120)
        self._context_timer.timeout.connect(self._send_container)

        # Elided: the app's name is the server's words, as long as it likes; the column keeps its width.
        self.title = ElidedLabel(origin.resource_uri, Qt.TextElideMode.ElideRight)
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.title.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)  # whole when there is room
        self.source = QLabel(f"App from <i>{_escape(server)}</i> · sandboxed")
        muted(self.source)
        self.source.setToolTip(origin.resource_uri)
        self.viewer_button = self._tool_button("Open in viewer", self.sig_open_in_viewer.emit)
        self.pop_button = self._tool_button("Pop out", self.sig_pop_out.emit)
        self.back_button = self._tool_button("Back to the chat", self.sig_bring_back.emit)
        header = FlowLayout()  # in a narrow column the buttons go to a second line instead of past its edge
        header.setContentsMargins(8, 4, 6, 0)
        header.addWidget(self.title)
        header.addWidget(self.source)
        header.addStretch()
        for button in (self.viewer_button, self.pop_button, self.back_button):
            header.addWidget(button)

        self.loading = QLabel("Starting the app…")
        self.loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        muted(self.loading)
        self.reason = QLabel()
        self.reason.setWordWrap(True)
        self.reason.setAlignment(Qt.AlignmentFlag.AlignCenter)
        coloured(self.reason, "danger", f"padding: {SPACE.l}px;")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.loading)
        self.stack.addWidget(self.reason)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        coloured(self.notice, "caution")
        self.notice.hide()
        self.grip = _Grip()
        self.grip.sig_dragged.connect(self._dragged)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(1, 1, 1, 1)
        layout.setSpacing(2)
        layout.addLayout(header)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.notice)
        layout.addWidget(self.grip)
        self.set_placement("inline")
        self._start_task: asyncio.Task[None] | None = bridge.spawn(
            self._start(), f"Opening the app {origin.resource_uri}"
        )
        self._start_task.add_done_callback(self._started)

    def _tool_button(self, text: str, slot: Any) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setAutoRaise(True)
        button.clicked.connect(lambda: slot())
        return button

    # -- where it is shown -------------------------------------------------------------------

    def set_placement(self, placement: Placement) -> None:
        self.placement = placement
        inline = placement == "inline"
        self.viewer_button.setVisible(placement != "viewer")
        self.pop_button.setVisible(placement != "window")
        self.back_button.setVisible(not inline and self.origin.call_id is not None)
        self.grip.setVisible(inline)
        if inline:
            self._apply_inline_height()
        else:
            self.stack.setMinimumHeight(0)
            self.stack.setMaximumHeight(UNBOUNDED)
        self._context_timer.start()

    def _apply_inline_height(self) -> None:
        if self.placement != "inline":
            return
        height = self._user_height or self._reported_height or INLINE_START
        if self.stack.currentWidget() is self.reason:
            height = max(self.reason.sizeHint().height(), INLINE_MIN)
        self.stack.setFixedHeight(max(INLINE_MIN, min(height, INLINE_MAX if self._user_height is None else 4000)))

    def _dragged(self, delta: int) -> None:
        self._user_height = max(INLINE_MIN, self.stack.height() + delta)
        self._apply_inline_height()
        self._context_timer.start()

    def _on_size(self, width: int | None, height: int | None) -> None:
        if height is not None:
            self._reported_height = height
            self._apply_inline_height()

    # -- host context ------------------------------------------------------------------------

    def container(self) -> dict[str, int]:
        width = max(self.stack.width(), 200)
        if self.placement == "inline" and self._user_height is None:
            return {"width": width, "maxHeight": INLINE_MAX}
        return {"width": width, "height": max(self.stack.height(), INLINE_MIN)}

    def host_context(self) -> dict[str, Any]:
        return host_context(self, self.container(), self.tool, self.origin.call_id)

    def _send_container(self) -> None:
        self.session.host_context_changed({"containerDimensions": self.container()})

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self.session.host_context_changed(look_context(self))

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._context_timer.start()

    # -- the tool call (from the controller) -------------------------------------------------

    def tool_input_partial(self, arguments: dict[str, Any]) -> None:
        self.session.tool_input_partial(arguments)

    def tool_input(self, arguments: dict[str, Any]) -> None:
        self.session.tool_input(arguments)

    def tool_result(self, result: dict[str, Any]) -> None:
        self.session.tool_result(result)

    def tool_cancelled(self, reason: str) -> None:
        self.session.tool_cancelled(reason)

    # -- starting ------------------------------------------------------------------------------

    def _started(self, _task: asyncio.Task[None]) -> None:
        self._start_task = None  # a finished task still holds its event loop: let both go

    async def _start(self) -> None:
        uri = self.origin.resource_uri
        try:
            result = await self._bridge.host.connection(self.server).read_resource(uri)
            snapshot = self._bridge.host.catalog.servers.get(self.server)
            listed = next((r for r in snapshot.resources if r.uri == uri), None) if snapshot else None
            document = app_document(self.server, uri, result, listed)
        except AppDocumentError as exc:
            self.close_view(str(exc))
            return
        except Exception as exc:
            self.close_view(f"The app could not be loaded: {describe_error(exc)}")
            return
        if self.session.state is SessionState.CLOSED:
            return
        self.document = document
        if document.meta.rejected:
            self.add_notice(
                f"Ignored origins the app declared in a form MCP Desk does not accept: "
                f"{', '.join(document.meta.rejected[:5])}"
            )
        self._services.log("info", f"CSP: {document.csp}")
        self._mount(document)

    def _mount(self, document: AppDocument) -> None:
        background = self.palette().color(self.backgroundRole())
        ask = self._ask_permission
        view, page, url = open_page(self.server, self.view_id, document, self._channel, ask, background)
        server_web(self.server).guard.sig_blocked.connect(self._on_blocked)
        page.sig_notice.connect(self.add_notice)
        page.sig_console.connect(lambda line: self._services.log("debug", line))
        page.loadFinished.connect(self._on_loaded)
        page.renderProcessTerminated.connect(self._on_crashed)
        self._page, self._web = page, view
        self.stack.addWidget(view)
        self.stack.setCurrentWidget(view)
        page.load(url)

    def _on_loaded(self, ok: bool) -> None:
        if ok:
            self.session.loaded()
        elif self.session.state is not SessionState.CLOSED:
            self.close_view("The app's page did not load.")

    def _on_crashed(self, status: QWebEnginePage.RenderProcessTerminationStatus, code: int) -> None:
        if status is not QWebEnginePage.RenderProcessTerminationStatus.NormalTerminationStatus:
            self.close_view(f"The app's page stopped unexpectedly (exit code {code}).")

    def _on_ready(self) -> None:
        if self.session.app_name:
            self.title.setText(self.session.app_name)
        self.sig_ready.emit()

    async def _ask_permission(self, what: str) -> bool:
        question = AppPermissionQuestion(
            server=self.server, call_id=self.origin.call_id, permission=what, app=self.origin.resource_uri
        )
        try:
            return await self._bridge.host.questions.ask(question)
        except TooManyQuestions:
            return False

    def has_painted(self) -> bool:
        """Whether the page shows anything but its background yet."""
        return has_painted(self._web)

    # -- containment -------------------------------------------------------------------------

    def add_notice(self, text: str) -> None:
        """Something was refused: say so under the view (the last few), and in the server's log."""
        self._services.log("warning", text)
        if text in self.notices[-3:]:
            return
        self.notices.append(text)
        shown = self.notices[-3:]
        self.notice.setText("\n".join(f"⚠ {line}" for line in shown))
        self.notice.setToolTip("\n".join(self.notices[-20:]))
        self.notice.show()

    def _on_blocked(self, view_id: str, url: str) -> None:
        if view_id == self.view_id:
            self.add_notice(f"Blocked a request to {url[:200]}: the app did not declare it.")

    def close_view(self, reason: str) -> None:
        """Stop the view for good and show `reason` in its place (the session is closed too)."""
        self.session.close(reason)

    def _on_session_closed(self, reason: str) -> None:
        self.reason.setText(reason)
        self.stack.setCurrentWidget(self.reason)
        self._release_page()
        self._apply_inline_height()
        self.sig_closed.emit(reason)

    def _release_page(self) -> None:
        if self._web is not None:
            self.stack.removeWidget(self._web)
            self._web.deleteLater()  # the page is its child: its renderer goes with it
            self._web = self._page = None
        if self.document is not None:
            release_page(self.server, self.view_id)

    async def dispose(self, reason: str) -> None:
        """Tell the view it is going (it may save its state), then release its page."""
        if self._start_task is not None:
            self._start_task.cancel()
        await self.session.teardown(reason)
        self._release_page()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

"""A desktop notification on Linux: the freedesktop Notifications service on the session bus.

GNOME and most Linux desktops have no system tray for `QSystemTrayIcon` to put messages in, but
every one of them runs `org.freedesktop.Notifications`. One notification is one short task: it
opens its own bus connection, shows the notice, waits until it is clicked, dismissed or no longer
needed, then closes the notice and the connection (the task that opens the connection closes it).
Qt's own D-Bus module would do, but its Python binding cannot express the unsigned integers and
string lists this interface needs; jeepney (keyring's D-Bus library) writes the signature out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Final

from jeepney import DBusAddress, HeaderFields, Message, MessageType, new_method_call  # type: ignore[import-untyped]
from jeepney.bus_messages import MatchRule, message_bus  # type: ignore[import-untyped]
from jeepney.io.asyncio import DBusRouter, open_dbus_router  # type: ignore[import-untyped]

log = logging.getLogger(__name__)

SERVICE: Final = DBusAddress(
    "/org/freedesktop/Notifications",
    bus_name="org.freedesktop.Notifications",
    interface="org.freedesktop.Notifications",
)
SHOWN_FOR_MS: Final = 10_000
GIVE_UP_AFTER_S: Final = 600.0
"""A notice nobody clicked or dismissed is withdrawn after this long (the question will have moved on)."""


async def show_notice(
    summary: str, body: str, *, on_click: Callable[[], None], done: asyncio.Event, bus: str = "SESSION"
) -> bool:
    """Show a notice until it is clicked (then `on_click`), dismissed, or `done` is set.

    False when there is no session bus or no notification service: the caller falls back.
    """
    try:
        async with open_dbus_router(bus) as router:
            signals = MatchRule(type="signal", interface=SERVICE.interface, path=SERVICE.object_path)
            await router.send_and_get_reply(message_bus.AddMatch(signals))
            with router.filter(signals, bufsize=8) as incoming:
                notify = new_method_call(
                    SERVICE,
                    "Notify",
                    "susssasa{sv}i",
                    ("MCP Desk", 0, "mcp-desk", summary, body, ["default", "Open"], {}, SHOWN_FOR_MS),
                )
                reply = await router.send_and_get_reply(notify)
                if reply.header.message_type is MessageType.error:
                    log.info("no desktop notification: %s", reply.body[0] if reply.body else "refused")
                    return False
                (notice,) = reply.body
                await _follow(router, incoming, notice, on_click, done)
                return True
    except (OSError, KeyError, ValueError) as exc:  # no bus address, no socket, a refused handshake
        log.info("no desktop notification: %s", exc)
        return False


async def _follow(
    router: DBusRouter, incoming: asyncio.Queue[Message], notice: int, on_click: Callable[[], None], done: asyncio.Event
) -> None:
    """Wait for this notice's click or close (or for `done`), then make sure it is gone."""
    finished = asyncio.ensure_future(done.wait())
    try:
        async with asyncio.timeout(GIVE_UP_AFTER_S):
            while not done.is_set():
                got = asyncio.ensure_future(incoming.get())
                await asyncio.wait({got, finished}, return_when=asyncio.FIRST_COMPLETED)
                if not got.done():
                    got.cancel()
                    break
                message = got.result()
                member = message.header.fields.get(HeaderFields.member)
                if not message.body or message.body[0] != notice:
                    continue
                if member == "ActionInvoked":
                    on_click()
                if member in ("ActionInvoked", "NotificationClosed"):
                    return  # the service has closed it
    except TimeoutError:
        pass
    finally:
        finished.cancel()
    close = new_method_call(SERVICE, "CloseNotification", "u", (notice,))
    await router.send_and_get_reply(close)

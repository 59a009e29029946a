"""A big listing's rows are built in a worker; only the newest listing of a server is shown."""

from __future__ import annotations

import asyncio

from mcp_types import Resource
from PySide6.QtWidgets import QApplication

from desktop_app.core.catalog import ServerCatalog
from resources_ui.listing_entries import BIG_LISTING, ListingEntries, is_big
from resources_ui.tree_entries import entries_of
from resources_ui.tree_model import ResourceTreeModel
from tests.hosting import eventually
from tests.window_kit import run_in_qt


def listing(count: int, word: str) -> ServerCatalog:
    resources = [Resource(uri=f"file:///{word}/{n}.txt", name=f"{word}-{n}") for n in range(count)]
    return ServerCatalog(server="big", resources=tuple(resources))


def test_only_the_newest_listing_of_a_server_is_delivered(qapp: QApplication) -> None:
    async def scenario() -> None:
        builder = ListingEntries()
        delivered: list[tuple[str, ServerCatalog, object]] = []
        builder.built.connect(lambda *args: delivered.append(args))
        old, new, gone = listing(BIG_LISTING + 1, "old"), listing(BIG_LISTING + 1, "new"), listing(3000, "gone")
        assert is_big(old) and not is_big(listing(BIG_LISTING, "small"))
        builder.build("big", old)
        builder.build("big", new)
        builder.build("other", gone)
        builder.forget("other")  # the server left while its rows were being built
        await eventually(lambda: bool(delivered), what="the newest listing's rows")
        await asyncio.sleep(0.2)  # the older builds end too, and are dropped
        assert delivered == [("big", new, entries_of(new))]

    run_in_qt(qapp, scenario())


def test_a_small_listing_shown_meanwhile_wins_over_a_big_one_still_being_built(qapp: QApplication) -> None:
    async def scenario() -> None:
        model = ResourceTreeModel()
        model._listings.build("big", listing(5000, "stale"))
        model.set_catalog("big", listing(2, "fresh"))
        await asyncio.sleep(0.5)
        server = model.index(0, 0)
        assert model.rowCount(server) == 2
        assert model.index(0, 0, server).data() == "fresh-0"

    run_in_qt(qapp, scenario())

"""Objects made in a `long_lived()` block are frozen out of collection; none runs meanwhile."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from desktop_app.core.long_lived import collection_paused, long_lived


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    """Give the frozen objects back to collection: other tests count on it."""
    yield
    gc.unfreeze()


class Node:
    def __init__(self) -> None:
        self.me = self


def test_what_the_block_made_is_frozen_and_collection_comes_back() -> None:
    assert gc.isenabled() and not collection_paused()
    frozen = gc.get_freeze_count()
    with long_lived():
        assert not gc.isenabled() and collection_paused()
        kept = [Node() for _ in range(5_000)]
    assert gc.isenabled() and not collection_paused()
    assert gc.get_freeze_count() >= frozen + len(kept)
    assert all(gc.is_tracked(node) for node in kept)


def test_overlapping_blocks_in_two_threads_pause_collection_until_the_last_ends() -> None:
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with long_lived():
            inside.set()
            leave.wait(10)

    worker = threading.Thread(target=other)
    with long_lived():
        worker.start()
        assert inside.wait(10)
    assert collection_paused() and not gc.isenabled()  # the other block still runs
    leave.set()
    worker.join(10)
    assert not collection_paused() and gc.isenabled()


def test_a_block_that_fails_still_freezes_and_restores() -> None:
    with pytest.raises(RuntimeError), long_lived():
        raise RuntimeError("import failed")
    assert gc.isenabled() and not collection_paused()


def test_collection_stays_off_when_it_was_off() -> None:
    gc.disable()
    try:
        with long_lived():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()

"""A populated registry fixture on 127.0.0.1 for the registry tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers.registry_documents import populate
from tests.servers.registry_fixture import RegistryFixture, running_registry


@pytest.fixture
def registry() -> Iterator[RegistryFixture]:
    with running_registry() as fixture:
        populate(fixture)
        yield fixture

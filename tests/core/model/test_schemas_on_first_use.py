"""Schemas deferred to their first use: an adapter naming nothing by a string waits; one with a
forward reference is built at once, from the code that made it."""

from __future__ import annotations

import pydantic
import pytest
from typing_extensions import TypedDict

from desktop_app.core.model.schemas_on_first_use import schemas_built_on_first_use


def test_a_plain_adapter_waits_for_its_first_use_and_then_validates() -> None:
    with schemas_built_on_first_use():
        adapter = pydantic.TypeAdapter(dict[str, list[int]])
    assert adapter.pydantic_complete is False
    assert adapter.validate_python({"a": ["1", 2]}) == {"a": [1, 2]}
    assert adapter.pydantic_complete is True
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"a": ["x"]})


def test_a_forward_reference_is_resolved_where_the_adapter_was_made() -> None:
    class Point(TypedDict):
        x: int

    with schemas_built_on_first_use():
        adapter = pydantic.TypeAdapter(list["Point"])  # "Point" exists only in this function
    assert adapter.pydantic_complete is True
    assert adapter.validate_python([{"x": "3"}]) == [{"x": 3}]


def test_models_wait_too_and_everything_is_as_before_after_the_block() -> None:
    with schemas_built_on_first_use():

        class Deferred(pydantic.BaseModel):
            n: int

    class Built(pydantic.BaseModel):
        n: int

    assert Deferred.__pydantic_complete__ is False
    assert Deferred(n="4").n == 4
    assert Built.__pydantic_complete__ is True
    assert pydantic.TypeAdapter(int).pydantic_complete is True

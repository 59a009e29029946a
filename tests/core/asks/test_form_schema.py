"""The elicitation schema subset: what is drawn, what is refused, and how answers are checked."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.core.asks.form_schema import FieldKind, Option, SchemaError, format_problem, parse_form_schema
from tests.servers.asking_server import PROFILE_SCHEMA


def test_every_kind_of_field_is_read_with_its_limits_and_defaults() -> None:
    form = parse_form_schema(PROFILE_SCHEMA)
    kinds = {f.name: f.kind for f in form.fields}
    assert kinds == {
        "name": FieldKind.TEXT,
        "email": FieldKind.TEXT,
        "age": FieldKind.INTEGER,
        "subscribe": FieldKind.BOOLEAN,
        "colour": FieldKind.CHOICE,
        "days": FieldKind.MULTI,
    }
    name, email, age, _, colour, days = form.fields
    assert name.required and name.min_length == 2 and name.label == "Name"
    assert email.format == "email" and email.required
    assert (age.minimum, age.maximum, age.default) == (0, 150, 30)
    assert colour.options == (Option("r", "Red"), Option("g", "Green"), Option("b", "Blue"))
    assert days.min_items == 1 and [o.value for o in days.options] == ["mon", "tue", "wed", "thu", "fri"]
    assert form.defaults() == {"age": 30, "subscribe": False, "colour": "g", "days": ["mon"]}
    assert form.required_without_default() == ["name", "email"]


def test_legacy_enum_names_and_titled_multi_select() -> None:
    form = parse_form_schema(
        {
            "type": "object",
            "properties": {
                "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"], "default": "p2"},
                "fish": {
                    "type": "array",
                    "items": {"anyOf": [{"const": "f1", "title": "Tuna"}, {"const": "f2", "title": "Trout"}]},
                    "maxItems": 1,
                },
            },
        }
    )
    pet, fish = form.fields
    assert pet.kind is FieldKind.CHOICE and pet.options == (Option("p1", "Cats"), Option("p2", "Dogs"))
    assert pet.default == "p2"
    assert fish.kind is FieldKind.MULTI and fish.max_items == 1
    assert fish.check(["f1", "f2"]) == "choose at most 1"


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": "array"}, "must be an object schema"),
        ({"type": "object"}, 'needs "properties"'),
        ({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}, "nested object"),
        ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}, "only lists of"),
        ({"type": "object", "properties": {"a": {"type": "string", "format": "password"}}}, "uses format 'password'"),
        ({"type": "object", "properties": {"a": {"type": "null"}}}, "has type 'null'"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}}, "enum of strings"),
        ({"type": "object", "properties": {"a": {"type": "string", "maxLength": -1}}}, "whole number"),
        ({"type": "object", "properties": {"a": {"type": "number", "minimum": "x"}}}, "must be a number"),
        ({"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(41)}}, "41 fields"),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"}, "list of property names"),
    ],
)
def test_schemas_outside_the_subset_are_refused_with_a_reason(schema: dict[str, Any], reason: str) -> None:
    with pytest.raises(SchemaError, match=reason):
        parse_form_schema(schema)


def test_answers_are_checked_field_by_field() -> None:
    form = parse_form_schema(PROFILE_SCHEMA)
    good = {"name": "Ada", "email": "ada@example.com", "age": 36, "colour": "r", "days": ["mon", "fri"]}
    assert form.problems(good) == {}
    bad = {"name": "A", "email": "ada", "age": 151.5, "colour": "pink", "days": [], "extra": 1}
    assert form.problems(bad) == {
        "extra": "is not a field of this form",
        "name": "needs at least 2 characters",
        "email": "must be an email address such as name@example.com",
        "age": "must be a whole number",
        "colour": "choose one of the options",
        "days": "choose at least 1",
    }
    assert form.problems({}) == {"name": "is required", "email": "is required"}
    assert form.problems({"name": "Ada", "email": "a@b.co", "subscribe": "yes"}) == {"subscribe": "must be yes or no"}


def test_a_default_that_breaks_its_own_field_is_not_offered() -> None:
    form = parse_form_schema({"type": "object", "properties": {"n": {"type": "integer", "maximum": 5, "default": 9}}})
    assert form.defaults() == {}


@pytest.mark.parametrize(
    ("kind", "value", "ok"),
    [
        ("email", "a@b.co", True),
        ("email", "a@b", False),
        ("uri", "https://example.com/x", True),
        ("uri", "example.com", False),
        ("date", "2026-02-28", True),
        ("date", "2026-02-30", False),
        ("date", "20260228", False),
        ("date-time", "2026-02-28T10:00:00Z", True),
        ("date-time", "2026-02-28T10:00:00+02:00", True),
        ("date-time", "2026-02-28", False),
    ],
)
def test_formats(kind: str, value: str, ok: bool) -> None:
    assert (format_problem(kind, value) is None) is ok

"""Tool schemas read in any draft and offered as JSON Schema 2020-12; the unusable ones named with why."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from mcp_types import Tool

from desktop_app.core.tool_schemas import (
    DIALECT_2020_12,
    MAX_SCHEMA_CHARS,
    input_problem,
    offered_schema,
    output_problem,
    to_2020_12,
)

DRAFT_07: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "definitions": {
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
        "list": {"type": "array", "items": {"type": "string"}, "additionalItems": False},
    },
    "properties": {
        "pair": {"$ref": "#/definitions/pair"},
        "first": {"$ref": "#/definitions/pair/items/0"},
        "definitions": {"type": "string", "$schema": "http://json-schema.org/draft-07/schema#"},
        "named": {"$ref": "#/properties/definitions"},
        "list": {"$ref": "#/definitions/list"},
    },
    "dependencies": {"pair": ["list"], "list": {"required": ["named"]}},
}


def tool(schema: Any, output: dict[str, Any] | None = None) -> Tool:
    return Tool(name="t", input_schema=schema, output_schema=output)


def test_a_draft07_schema_is_offered_as_2020_12_with_the_same_meaning() -> None:
    original = copy.deepcopy(DRAFT_07)
    offered = offered_schema(tool(DRAFT_07))
    assert offered is not None and input_problem(tool(DRAFT_07)) is None
    assert original == DRAFT_07  # the tool's own schema is left as it is
    Draft202012Validator.check_schema(offered)
    assert offered["$schema"] == DIALECT_2020_12
    assert set(offered["$defs"]) == {"pair", "list"} and "definitions" not in offered
    assert offered["$defs"]["pair"] == {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "items": False,
    }
    assert offered["$defs"]["list"] == {"type": "array", "items": {"type": "string"}}  # additionalItems meant nothing
    properties = offered["properties"]
    assert properties["pair"] == {"$ref": "#/$defs/pair"}
    assert properties["first"] == {"$ref": "#/$defs/pair/prefixItems/0"}
    assert properties["definitions"] == {"type": "string"}  # a property of that name is not the keyword
    assert properties["named"] == {"$ref": "#/properties/definitions"}
    assert offered["dependentRequired"] == {"pair": ["list"]}
    assert offered["dependentSchemas"] == {"list": {"required": ["named"]}}
    old, new = Draft7Validator(DRAFT_07), Draft202012Validator(offered)
    for instance in (
        {"pair": ["a", 1]},
        {"pair": ["a", 1, 2], "list": []},
        {"pair": ["a", "b"], "list": []},
        {"list": ["x"]},
        {"list": ["x"], "named": "y"},
    ):
        assert old.is_valid(instance) == new.is_valid(instance), instance


def test_draft04_ids_and_exclusive_bounds_are_rewritten() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "id": "https://example.com/root.json",
        "type": "object",
        "properties": {
            "n": {"type": "number", "maximum": 3, "exclusiveMaximum": True, "minimum": 0, "exclusiveMinimum": False},
            "a": {"id": "#anchor", "type": "string"},
            "b": {"$ref": "#anchor"},
        },
    }
    offered = to_2020_12(schema)
    assert offered["$id"] == "https://example.com/root.json" and "id" not in offered
    assert offered["properties"]["n"] == {"type": "number", "exclusiveMaximum": 3, "minimum": 0}
    assert offered["properties"]["a"] == {"$anchor": "anchor", "type": "string"}
    assert input_problem(tool(schema)) is None
    assert Draft202012Validator(offered).is_valid({"n": 2.9, "b": "x"})
    assert not Draft202012Validator(offered).is_valid({"n": 3})


def test_2019_recursive_references_become_dynamic_ones() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$recursiveAnchor": True,
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$recursiveRef": "#"}}},
    }
    offered = to_2020_12(schema)
    assert offered["$dynamicAnchor"] == "recursive"
    assert offered["properties"]["children"]["items"] == {"$dynamicRef": "#recursive"}
    assert input_problem(tool(schema)) is None


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "string"}, 'its schema is not an object schema (type: "string")'),
        ({"type": ["string", "null"]}, 'its schema is not an object schema (type: ["string", "null"])'),
        (
            {"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json#/a"}}},
            "its schema refers to a remote schema ($ref 'https://example.com/x.json#/a'), which MCP Desk does not"
            " fetch",
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "other.json"}}},
            "its schema refers to a remote schema ($ref 'other.json'), which MCP Desk does not fetch",
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "#/definitions/missing"}}},
            "its schema has a $ref that points nowhere ('#/$defs/missing')",
        ),
        (
            {"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "properties": {}},
            "its schema's $ref '#/$defs/b' only refers to itself, through other references",
        ),
        (
            {"type": "object", "properties": {"x": {"type": "text"}}},
            "its schema is not valid JSON Schema 2020-12 at properties/x/type: 'text' is not valid under any of the"
            " given schemas",
        ),
    ],
)
def test_an_unusable_input_schema_is_named_with_why(schema: Any, problem: str) -> None:
    assert input_problem(tool(schema)) == problem
    assert offered_schema(tool(schema)) is None


def test_an_absurdly_large_or_deep_schema_is_unusable() -> None:
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(MAX_SCHEMA_CHARS // 10)}}
    assert (input_problem(tool(wide)) or "").startswith("its schema is too large (")
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(40):
        deep = {"type": "object", "properties": {"a": deep}}
    assert input_problem(tool(deep)) == "its schema nests deeper than 64 levels"


def test_recursion_through_structure_and_embedded_ids_are_kept() -> None:
    tree = {
        "type": "object",
        "$id": "https://example.com/tree.json",
        "properties": {"node": {"$ref": "#/$defs/node"}, "leaf": {"$ref": "https://example.com/leaf.json"}},
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            },
            "leaf": {"$id": "https://example.com/leaf.json", "type": "string"},
        },
    }
    assert input_problem(tool(tree)) is None


def test_an_output_schema_is_judged_apart_and_only_when_there_is_one() -> None:
    assert output_problem(tool({"type": "object"})) is None
    assert output_problem(tool({"type": "object"}, {"type": "object", "definitions": {}})) is None
    remote = {"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}}
    assert (output_problem(tool({"type": "object"}, remote)) or "").startswith("its schema refers to a remote schema")
    assert input_problem(tool({"type": "object"}, remote)) is None  # the tool itself stays usable

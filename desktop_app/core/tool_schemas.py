"""Tool schemas: read in any JSON Schema draft, handed to a model provider as 2020-12.

Providers refuse a request whose tools are not JSON Schema 2020-12, and one such tool fails every
request of a turn; many servers still write draft-07 (`definitions`, tuple `items`,
`dependencies`) or draft-04 (`id`, boolean `exclusiveMaximum`). `offered_schema` rewrites a schema
into 2020-12 with the same meaning; `input_problem` names what makes a tool's input schema
unusable (then the tool is kept from the model, and the user is told why); `output_problem` does
the same for an output schema, which MCP Desk then ignores (the model never sees it, so a tool whose
input is fine stays useful). Only local `#...` references are followed, never one that would fetch.
The tool's own schema is left as it is: it is what the user approved and what arguments are
checked against.

"Unusable" is: not an object schema, a remote or dangling `$ref`, `$ref`s that only refer to each
other (recursion through properties or items is kept: providers take it), invalid against the
2020-12 metaschema once converted, or absurdly large or deep. Checking a schema against its
metaschema takes milliseconds, so verdicts are cached per distinct schema, and the connection makes
them off the event loop as it lists (`connection/listings.py`).
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urldefrag

from mcp_types import Tool

DIALECT_2020_12: Final = "https://json-schema.org/draft/2020-12/schema"
MAX_SCHEMA_CHARS: Final = 200_000
"""A schema past this (as JSON) is not a tool description a model can use, and costs every request."""
MAX_DEPTH: Final = 64

# Keywords whose value is one subschema, a map of subschemas, or a list of subschemas.
_ONE: Final = frozenset(
    {
        "additionalProperties",
        "propertyNames",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
        "items",
    }
)
_MAP: Final = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_LIST: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_NAMES: Final = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose keys are names (a property called `definitions` is not the keyword)."""


@dataclass(frozen=True)
class SchemaVerdict:
    """A schema as offered (2020-12), or why it cannot be used."""

    schema: Mapping[str, Any] | None
    problem: str | None


def offered_schema(tool: Tool) -> Mapping[str, Any] | None:
    """The tool's input schema in 2020-12 (shared: copy before changing it), or None when unusable."""
    return _input_verdict(tool).schema


def input_problem(tool: Tool) -> str | None:
    """Why the tool's input schema cannot be offered to a model, or None when it can."""
    return _input_verdict(tool).problem


def output_problem(tool: Tool) -> str | None:
    """Why the tool's output schema cannot be used (it is then ignored), or None (also when it has none)."""
    if tool.output_schema is None:
        return None
    return _verdict(_key(tool.output_schema)).problem


def _input_verdict(tool: Tool) -> SchemaVerdict:
    return _verdict(_key(tool.input_schema))


def _key(schema: Any) -> str:
    try:
        return json.dumps(schema, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return "null"


@functools.lru_cache(maxsize=8192)
def _verdict(key: str) -> SchemaVerdict:
    """One schema's verdict, once per distinct schema (thousands of tools re-listed stay cheap)."""
    if len(key) > MAX_SCHEMA_CHARS:
        return SchemaVerdict(None, f"its schema is too large ({len(key) // 1000:,} KB of JSON)")
    schema = json.loads(key)
    if not isinstance(schema, dict):
        return SchemaVerdict(None, "its schema is not a JSON object")
    kind = schema.get("type", "object")
    if kind != "object" and not (isinstance(kind, list) and "object" in kind):
        return SchemaVerdict(None, f"its schema is not an object schema (type: {json.dumps(kind)})")
    if _depth(schema) > MAX_DEPTH:
        return SchemaVerdict(None, f"its schema nests deeper than {MAX_DEPTH} levels")
    converted = to_2020_12(schema)
    problem = _reference_problem(converted) or _metaschema_problem(converted)
    return SchemaVerdict(None, problem) if problem else SchemaVerdict(converted, None)


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level)
    return level


def to_2020_12(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` (draft-04 to 2020-12) rewritten as 2020-12 with the same meaning, as a new object."""
    dialect = schema.get("$schema")
    draft4 = isinstance(dialect, str) and ("draft-04" in dialect or "draft-03" in dialect)
    out: dict[str, Any] = _convert(copy.deepcopy(dict(schema)), draft4, root=True)
    out["$schema"] = DIALECT_2020_12
    return out


def _convert(node: Any, draft4: bool, *, root: bool = False) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$schema" and not root:
            continue  # only a schema resource's root may name its dialect
        if key in _MAP and isinstance(value, dict):
            out[key] = {name: _convert(sub, draft4) for name, sub in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = [_convert(sub, draft4) for sub in value]
        elif key in _ONE:
            out[key] = [_convert(sub, draft4) for sub in value] if isinstance(value, list) else _convert(value, draft4)
        elif key in ("$ref", "$dynamicRef") and isinstance(value, str):
            out[key] = _renamed_ref(value)
        elif key == "dependencies" and isinstance(value, dict):
            out[key] = {name: _convert(sub, draft4) for name, sub in value.items()}
        else:
            out[key] = value
    _rename_definitions(out)
    _tuple_items(out)
    _dependencies(out)
    _recursive(out)
    if draft4:
        _draft4(out)
    _anchor(out)
    return out


def _rename_definitions(out: dict[str, Any]) -> None:
    definitions = out.pop("definitions", None)
    if isinstance(definitions, dict):
        defs = out.get("$defs")
        out["$defs"] = {**definitions, **(defs if isinstance(defs, dict) else {})}
    elif definitions is not None:
        out["definitions"] = definitions


def _renamed_ref(ref: str) -> str:
    """A local pointer into keywords the rewrite renamed (`definitions`, tuple `items`, …) follows them."""
    if not ref.startswith("#/"):
        return ref
    parts = ref[2:].split("/")
    renamed: list[str] = []
    keyword = True  # whether this segment names a keyword (not a property name or an index)
    for index, part in enumerate(parts):
        if not keyword:
            renamed.append(part)
            keyword = True
            continue
        following = parts[index + 1] if index + 1 < len(parts) else ""
        if part == "items" and following.isdigit():
            part = "prefixItems"
        renamed.append(_RENAMED.get(part, part))
        keyword = part not in _MAP and part not in _LIST and part != "dependencies"
    return "#/" + "/".join(renamed)


_RENAMED: Final = {"definitions": "$defs", "additionalItems": "items", "dependencies": "dependentSchemas"}


def _tuple_items(out: dict[str, Any]) -> None:
    items = out.get("items")
    additional = out.pop("additionalItems", None)
    if isinstance(items, list):
        out["prefixItems"] = items
        if additional is not None:
            out["items"] = additional
        else:
            del out["items"]
    # With `items` one schema (or absent), draft-07 ignores `additionalItems`: so does its rewrite.


def _dependencies(out: dict[str, Any]) -> None:
    dependencies = out.pop("dependencies", None)
    if not isinstance(dependencies, dict):
        if dependencies is not None:
            out["dependencies"] = dependencies
        return
    required = {k: v for k, v in dependencies.items() if isinstance(v, list)}
    schemas = {k: v for k, v in dependencies.items() if not isinstance(v, list)}
    for keyword, found in (("dependentRequired", required), ("dependentSchemas", schemas)):
        existing = out.get(keyword)
        if found:
            out[keyword] = {**found, **(existing if isinstance(existing, dict) else {})}


def _recursive(out: dict[str, Any]) -> None:
    """2019-09's `$recursiveRef`/`$recursiveAnchor` are 2020-12's dynamic ones."""
    if isinstance(out.get("$recursiveRef"), str):
        out["$dynamicRef"] = out.pop("$recursiveRef")
        if out["$dynamicRef"] == "#":
            out["$dynamicRef"] = "#recursive"
    if out.pop("$recursiveAnchor", None) is True:
        out["$dynamicAnchor"] = "recursive"


def _draft4(out: dict[str, Any]) -> None:
    if isinstance(out.get("id"), str) and "$id" not in out:
        out["$id"] = out.pop("id")
    for bound, exclusive in (("maximum", "exclusiveMaximum"), ("minimum", "exclusiveMinimum")):
        flag = out.get(exclusive)
        if flag is True and isinstance(out.get(bound), int | float):
            out[exclusive] = out.pop(bound)
        elif isinstance(flag, bool):
            del out[exclusive]


def _anchor(out: dict[str, Any]) -> None:
    """A plain-name fragment `$id` (`#foo`) is a 2020-12 `$anchor`."""
    ident = out.get("$id")
    if isinstance(ident, str) and ident.startswith("#") and "$anchor" not in out:
        del out["$id"]
        if len(ident) > 1:
            out["$anchor"] = ident[1:]


def _reference_problem(schema: dict[str, Any]) -> str | None:
    """A reference MCP Desk will not follow (it would fetch), one that points nowhere, or a loop of them."""
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    embedded = {urldefrag(i)[0] for i in _values(schema, "$id") if isinstance(i, str)}
    base = str(schema.get("$id") or "")
    resource = Resource.from_contents(schema, default_specification=DRAFT202012)
    resolver = Registry().with_resource(base, resource).crawl().resolver(base_uri=base)
    for ref in _values(schema, "$ref"):
        if not isinstance(ref, str):
            return "its schema has a $ref that is not a string"
        if not ref.startswith("#") and urldefrag(ref)[0] not in embedded:
            return f"its schema refers to a remote schema ($ref {ref!r}), which MCP Desk does not fetch"
        try:
            target = resolver.lookup(ref).contents
        except Unresolvable:
            return f"its schema has a $ref that points nowhere ({ref!r})"
        if _loops(target, resolver):
            return f"its schema's $ref {ref!r} only refers to itself, through other references"
    return None


def _loops(target: Any, resolver: Any) -> bool:
    """Whether a chain of bare references comes back on itself (no validator, and no provider, can use it)."""
    from referencing.exceptions import Unresolvable

    seen: list[int] = []
    while isinstance(target, dict) and isinstance(target.get("$ref"), str) and set(target) <= {"$ref", "$comment"}:
        if id(target) in seen:
            return True
        seen.append(id(target))
        try:
            target = resolver.lookup(target["$ref"]).contents
        except Unresolvable:
            return False
    return False


def _values(node: Any, keyword: str) -> list[Any]:
    """Every value of `keyword` in a schema position (not under a property of that name)."""
    found: list[Any] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == keyword:
                found.append(value)
            elif key in _NAMES:
                for sub in value.values() if isinstance(value, dict) else ():
                    found.extend(_values(sub, keyword))
            elif key in ("enum", "const", "default", "examples", "dependentRequired"):
                continue
            else:
                found.extend(_values(value, keyword))
    elif isinstance(node, list):
        for item in node:
            found.extend(_values(item, keyword))
    return found


def _metaschema_problem(schema: dict[str, Any]) -> str | None:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # here: its import costs 0.3-1 s
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        return f"its schema is not valid JSON Schema 2020-12{f' at {where}' if where else ''}: {exc.message}"
    return None

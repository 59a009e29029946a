"""The part of JSON Schema an elicitation form may use, read into fields a form can draw.

The spec (2025-11-25) allows a flat object of primitive properties: strings (formats `email`,
`uri`, `date`, `date-time`; `minLength`, `maxLength`), numbers and integers (`minimum`,
`maximum`), booleans, single-select enums (`enum`, legacy `enumNames`, titled `oneOf` of
`const` + `title`) and multi-select enums (`type: array` whose `items` hold `enum` or a titled
`anyOf`; `minItems`, `maxItems`). Anything else is refused with a reason the server can read,
rather than drawn half-right. The same `FormSchema` checks what the user (or a script) submits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any, Final
from urllib.parse import urlsplit

MAX_FIELDS: Final = 40
"""A form longer than this is not a question, it is a flood."""
MAX_OPTIONS: Final = 500
FORMATS: Final = ("email", "uri", "date", "date-time")

_EMAIL: Final = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_DATE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME: Final = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?$")


class SchemaError(ValueError):
    """The requested schema is outside what a form may ask; the message says what and where."""


class FieldKind(StrEnum):
    TEXT = "string"
    NUMBER = "number"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    CHOICE = "choice"
    """One of several strings."""
    MULTI = "multi"
    """Any number of several strings (a JSON array)."""


@dataclass(frozen=True)
class Option:
    value: str
    title: str


@dataclass(frozen=True)
class FormField:
    """One property of the form, with everything needed to draw and check it."""

    name: str
    kind: FieldKind
    title: str = ""
    description: str = ""
    required: bool = False
    default: Any = None
    format: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    options: tuple[Option, ...] = ()
    min_items: int | None = None
    max_items: int | None = None

    @property
    def label(self) -> str:
        return self.title or self.name

    def check(self, value: Any) -> str | None:
        """None when `value` is acceptable for this field, else what is wrong (in the user's words)."""
        if self.kind is FieldKind.BOOLEAN:
            return None if isinstance(value, bool) else "must be yes or no"
        if self.kind in (FieldKind.NUMBER, FieldKind.INTEGER):
            return self._check_number(value)
        if self.kind is FieldKind.CHOICE:
            return None if value in {o.value for o in self.options} else "choose one of the options"
        if self.kind is FieldKind.MULTI:
            return self._check_multi(value)
        return self._check_text(value)

    def _check_number(self, value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return "must be a number"
        if self.kind is FieldKind.INTEGER and not float(value).is_integer():
            return "must be a whole number"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {_number(self.minimum)}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {_number(self.maximum)}"
        return None

    def _check_multi(self, value: Any) -> str | None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return "must be a list of options"
        allowed = {o.value for o in self.options}
        if any(v not in allowed for v in value) or len(set(value)) != len(value):
            return "choose among the options, each at most once"
        if self.min_items is not None and len(value) < self.min_items:
            return f"choose at least {self.min_items}"
        if self.max_items is not None and len(value) > self.max_items:
            return f"choose at most {self.max_items}"
        return None

    def _check_text(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return "must be text"
        if self.min_length is not None and len(value) < self.min_length:
            return f"needs at least {self.min_length} characters"
        if self.max_length is not None and len(value) > self.max_length:
            return f"allows at most {self.max_length} characters"
        return format_problem(self.format, value)


def format_problem(kind: str | None, value: str) -> str | None:
    """Why `value` is not a valid `email`/`uri`/`date`/`date-time`, or None."""
    if kind == "email" and not _EMAIL.match(value):
        return "must be an email address such as name@example.com"
    if kind == "uri":
        parts = urlsplit(value)
        if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*$", parts.scheme) or not (parts.netloc or parts.path):
            return "must be a full address such as https://example.com"
    if kind == "date" and not _valid(_DATE, date.fromisoformat, value):
        return "must be a date such as 2026-03-31"
    if kind == "date-time" and not _valid(_DATE_TIME, datetime.fromisoformat, value.replace("z", "Z")):
        return "must be a date and time such as 2026-03-31T14:30:00Z"
    return None


def number_from_text(form_field: FormField, text: str) -> int | float | str | None:
    """A number field's value from what the user typed: None when empty, the number as typed (never
    moved into the bounds, so `check` can say it is out of them), or the text itself when it is not a
    number (which `check` refuses). A decimal comma is read as a point."""
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text.replace(",", ".") if "." not in text else text)
    except ValueError:
        return text
    if form_field.kind is FieldKind.INTEGER and number.is_integer() and math.isfinite(number):
        return int(number)
    return number


def number_hint(form_field: FormField) -> str:
    """What a number field takes, for a placeholder: "a whole number from 15 to 240"."""
    kind = "a whole number" if form_field.kind is FieldKind.INTEGER else "a number"
    low, high = form_field.minimum, form_field.maximum
    if low is not None and high is not None:
        return f"{kind} from {_number(low)} to {_number(high)}"
    if low is not None:
        return f"{kind}, at least {_number(low)}"
    if high is not None:
        return f"{kind}, at most {_number(high)}"
    return kind


def _valid(pattern: re.Pattern[str], parse: Any, value: str) -> bool:
    if not pattern.match(value):
        return False
    try:
        parse(value)
    except ValueError:
        return False
    return True


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


@dataclass(frozen=True)
class FormSchema:
    """The fields of one elicitation form, in the order the server listed them."""

    fields: tuple[FormField, ...]

    def field(self, name: str) -> FormField | None:
        return next((f for f in self.fields if f.name == name), None)

    def defaults(self) -> dict[str, Any]:
        """The server's defaults, for every field that has one."""
        return {f.name: f.default for f in self.fields if f.default is not None}

    def required_without_default(self) -> list[str]:
        return [f.name for f in self.fields if f.required and f.default is None]

    def problems(self, values: Mapping[str, Any]) -> dict[str, str]:
        """Field name -> what is wrong; empty when `values` may be sent. Unknown names are wrong too."""
        found = {name: "is not a field of this form" for name in values if self.field(name) is None}
        for form_field in self.fields:
            problem = field_problem(form_field, values.get(form_field.name))
            if problem is not None:
                found[form_field.name] = problem
        return found


def field_problem(form_field: FormField, value: Any) -> str | None:
    """What is wrong with `value` (None: left empty) for one field, in the user's words; None when it fits."""
    if value is None:
        return "is required" if form_field.required else None
    return form_field.check(value)


def parse_form_schema(schema: object) -> FormSchema:
    """Read an elicitation's `requestedSchema`; raises `SchemaError` for anything outside the subset."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise SchemaError('the requested schema must be an object schema ("type": "object")')
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        raise SchemaError('the requested schema needs "properties"')
    if len(properties) > MAX_FIELDS:
        raise SchemaError(f"the form has {len(properties)} fields; at most {MAX_FIELDS} are shown")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise SchemaError('"required" must be a list of property names')
    fields = tuple(_field(name, spec, name in required) for name, spec in properties.items())
    return FormSchema(fields)


def _field(name: str, spec: object, required: bool) -> FormField:
    if not isinstance(spec, dict):
        raise SchemaError(f"property '{name}' must be a schema object")
    kind = spec.get("type")
    common: dict[str, Any] = {
        "name": name,
        "title": _text(spec, "title", name),
        "description": _text(spec, "description", name),
        "required": required,
    }
    if kind == "string":
        options = _options(name, spec)
        if options:
            return _with_default(FormField(kind=FieldKind.CHOICE, options=options, **common), spec.get("default"))
        text_format = spec.get("format")
        if text_format is not None and text_format not in FORMATS:
            raise SchemaError(f"property '{name}' uses format '{text_format}'; forms allow {', '.join(FORMATS)}")
        text = FormField(
            kind=FieldKind.TEXT,
            format=text_format,
            min_length=_count(spec, "minLength", name),
            max_length=_count(spec, "maxLength", name),
            **common,
        )
        return _with_default(text, spec.get("default"))
    if kind in ("number", "integer"):
        number = FormField(
            kind=FieldKind(kind),
            minimum=_bound(spec, "minimum", name),
            maximum=_bound(spec, "maximum", name),
            **common,
        )
        return _with_default(number, spec.get("default"))
    if kind == "boolean":
        return _with_default(FormField(kind=FieldKind.BOOLEAN, **common), spec.get("default"))
    if kind == "array":
        items = spec.get("items")
        options = _options(name, items) if isinstance(items, dict) else ()
        if not options:
            raise SchemaError(f"property '{name}' is a list; forms allow only lists of enumerated options")
        multi = FormField(
            kind=FieldKind.MULTI,
            options=options,
            min_items=_count(spec, "minItems", name),
            max_items=_count(spec, "maxItems", name),
            **common,
        )
        return _with_default(multi, spec.get("default"))
    if kind == "object":
        raise SchemaError(f"property '{name}' is a nested object; forms allow only flat, primitive fields")
    raise SchemaError(f"property '{name}' has type {kind!r}; forms allow string, number, integer, boolean or enums")


def _options(name: str, spec: dict[str, Any]) -> tuple[Option, ...]:
    """Options of an enum-like schema: `enum` (+ legacy `enumNames`), or a titled `oneOf`/`anyOf`."""
    if "enum" in spec:
        values = spec["enum"]
        titles = spec.get("enumNames")
        if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
            raise SchemaError(f"property '{name}' needs a non-empty enum of strings")
        if titles is not None and (
            not isinstance(titles, list) or len(titles) != len(values) or not all(isinstance(t, str) for t in titles)
        ):
            raise SchemaError(f"property '{name}' has enumNames that do not match its enum")
        options = tuple(Option(v, t) for v, t in zip(values, titles or values, strict=True))
    else:
        variants = spec.get("oneOf", spec.get("anyOf"))
        if variants is None:
            return ()
        if not isinstance(variants, list) or not variants:
            raise SchemaError(f"property '{name}' needs a non-empty list of options")
        pairs = []
        for variant in variants:
            if not isinstance(variant, dict) or not isinstance(variant.get("const"), str):
                raise SchemaError(f"property '{name}' has an option without a string const")
            pairs.append(Option(variant["const"], _text(variant, "title", name) or variant["const"]))
        options = tuple(pairs)
    if len(options) > MAX_OPTIONS:
        raise SchemaError(f"property '{name}' has {len(options)} options; at most {MAX_OPTIONS} are shown")
    if len({o.value for o in options}) != len(options):
        raise SchemaError(f"property '{name}' lists an option twice")
    return options


def _with_default(form_field: FormField, default: Any) -> FormField:
    """Keep the server's default only when it is itself a valid answer (a bad one is not shown)."""
    if default is None or form_field.check(default) is not None:
        return form_field
    if form_field.kind is FieldKind.INTEGER:
        default = int(default)
    return FormField(**{**form_field.__dict__, "default": default})


def _text(spec: dict[str, Any], key: str, name: str) -> str:
    value = spec.get(key, "")
    if not isinstance(value, str):
        raise SchemaError(f"property '{name}' has a {key} that is not text")
    return value


def _count(spec: dict[str, Any], key: str, name: str) -> int | None:
    value = spec.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaError(f"property '{name}' has {key} {value!r}; it must be a whole number ≥ 0")
    return value


def _bound(spec: dict[str, Any], key: str, name: str) -> float | None:
    value = spec.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SchemaError(f"property '{name}' has {key} {value!r}; it must be a number")
    return value

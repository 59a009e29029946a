"""The model library's pydantic schemas, built when first used rather than when defined.

litellm defines about 600 pydantic models and 600 type adapters at import; a chat uses a few dozen
of each. Building them all is about 0.75 s of the import's CPU (the models 0.6 s, the adapters 0.14 s).
In the block, models and adapters get pydantic's `defer_build`. A deferred adapter looks a name up
where it is first used, not where it was made, so one whose type names something by a string (a
forward reference) is built at once, as before; models and typed dicts resolve their own fields.
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Iterator
from typing import Any, Final

_DEPTH: Final = 8
"""How deep a type's arguments are searched for a forward reference."""


def _names_nothing_by_string(tp: object, depth: int = 0) -> bool:
    if isinstance(tp, (str, typing.ForwardRef)):
        return False
    if depth >= _DEPTH:
        return False
    return all(_names_nothing_by_string(arg, depth + 1) for arg in typing.get_args(tp))


@contextlib.contextmanager
def schemas_built_on_first_use() -> Iterator[None]:
    """Models and type adapters defined in the block (in any thread) build their schemas on first use."""
    import pydantic
    from pydantic.type_adapter import _type_has_config

    model_config = pydantic.BaseModel.model_config
    make_adapter = pydantic.TypeAdapter.__init__

    def deferred_adapter(self: Any, type: Any, *, config: Any = None, _parent_depth: int = 2, **rest: Any) -> None:
        if config is None and not _type_has_config(type) and _names_nothing_by_string(type):
            config = {"defer_build": True}
        # One frame more between pydantic and the code that made the adapter: this one.
        make_adapter(self, type, config=config, _parent_depth=_parent_depth + 1, **rest)

    pydantic.BaseModel.model_config = {**model_config, "defer_build": True}
    pydantic.TypeAdapter.__init__ = deferred_adapter  # type: ignore[method-assign]
    try:
        yield
    finally:
        pydantic.TypeAdapter.__init__ = make_adapter  # type: ignore[method-assign]
        pydantic.BaseModel.model_config = model_config

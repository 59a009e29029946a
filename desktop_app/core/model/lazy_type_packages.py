"""The OpenAI SDK's type packages, each member imported when it is first named.

litellm imports the OpenAI SDK whatever the provider, and each package of `openai.types` imports every
generated module in it as soon as the package is imported: about 1,000 modules, of which the model
library's import and its first call name about 340. The other 650 cost 0.3-0.4 s of the 2.0 s of CPU
that import and call took.

In the block, a package under `openai.types` whose code does nothing but name members of its own
submodules (`from .batch import Batch as Batch`, as the SDK's generator writes every one of them) gets
those names as they are first read, through a module `__getattr__` (PEP 562): what names a member imports
its module then. A package with any other statement, or with a member named like one of the submodules
it names, loads as written. The names are read from the package's compiled code, not its source, so
the bundle (which carries no source) loads the same way; code compiled some other way loads as written.
"""

from __future__ import annotations
import __future__

import contextlib
import dis
import importlib
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from types import CodeType, ModuleType
from typing import Any, Final

from desktop_app.core.model.import_hooks import Delegate, spec_elsewhere

PACKAGES: Final = "openai.types"
_SKIPPED: Final = frozenset({"RESUME", "NOP", "CACHE", "EXTENDED_ARG"})
_FUTURE: Final = "__future__"
_END: Final = "<end>"


@dataclass(frozen=True)
class Member:
    """A name a package binds: `attribute` of its submodule `module`."""

    module: str
    attribute: str


@dataclass(frozen=True)
class Members:
    """What a package's code binds: its members, and the `__future__` features it turns on (by name bound)."""

    members: dict[str, Member]
    futures: dict[str, str]


def members_only(code: CodeType) -> Members | None:
    """The names `code` binds, if all it does is `from .x import y as z` and `from __future__ import y`."""
    members: dict[str, Member] = {}
    futures: dict[str, str] = {}
    consts: list[object] = []
    source: str | None = None  # the module of the `from … import` being read
    attribute: str | None = None
    for instruction in dis.get_instructions(code):
        op, value = instruction.opname, instruction.argval
        if op in _SKIPPED:
            continue
        if source == _END:  # nothing may follow the return (an `except` clause's code would)
            return None
        if op == "LOAD_CONST" and source is None:
            consts.append(value)
        elif op == "IMPORT_NAME" and source is None and len(consts) == 2:
            level, names = consts
            consts = []
            own_submodule, future = level == 1 and value, level == 0 and value == _FUTURE
            if not isinstance(names, tuple) or "*" in names or not (own_submodule or future):
                return None
            source = value
        elif op == "IMPORT_FROM" and source is not None and attribute is None:
            attribute = value
        elif op == "STORE_NAME" and source is not None and attribute is not None:
            if source == _FUTURE:
                futures[value] = attribute
            else:
                members[value] = Member(source, attribute)
            attribute = None
        elif op == "POP_TOP" and source is not None and attribute is None:
            source = None
        elif (op, consts) in (("RETURN_VALUE", [None]), ("RETURN_CONST", [])) and source is None:
            source = _END
        else:
            return None
    submodules = {member.module.split(".")[0] for member in members.values()}
    clashes = [name for name in members if name in submodules]
    return Members(members, futures) if source == _END and not clashes else None


class _MembersOnFirstUse(Delegate):
    """The package's loader, its code not run: its members are imported as they are first named."""

    def __init__(self, inner: Any, members: Members) -> None:
        super().__init__(inner)
        self._members = members

    def exec_module(self, module: ModuleType) -> None:
        package, members = module.__name__, self._members.members
        for name, feature in self._members.futures.items():
            setattr(module, name, getattr(__future__, feature))

        def __getattr__(name: str) -> Any:
            member = members.get(name)
            if member is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            value = getattr(importlib.import_module(f"{package}.{member.module}"), member.attribute)
            setattr(module, name, value)
            return value

        def __dir__() -> list[str]:
            return sorted({*vars(module), *members})

        module.__getattr__ = __getattr__  # type: ignore[method-assign]
        module.__dir__ = __dir__  # type: ignore[method-assign]


class _Finder:
    """Finds the type packages as every other finder would, their loaders wrapped where they qualify."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: object = None) -> ModuleSpec | None:
        if name != PACKAGES and not name.startswith(f"{PACKAGES}."):
            return None
        spec = spec_elsewhere(self, name, path, target)
        if spec is None or spec.submodule_search_locations is None:
            return spec
        get_code = getattr(spec.loader, "get_code", None)
        code = get_code(name) if get_code is not None else None
        members = members_only(code) if isinstance(code, CodeType) else None
        if members is not None:
            spec.loader = _MembersOnFirstUse(spec.loader, members)  # type: ignore[assignment]  # by its methods
        return spec


@contextlib.contextmanager
def type_members_on_first_use() -> Iterator[None]:
    """The OpenAI SDK's type packages imported in the block load each member when it is first named."""
    finder = _Finder()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)

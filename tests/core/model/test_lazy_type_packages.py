"""The OpenAI SDK's type packages with their members imported on first use: which packages qualify, and
that every name resolves to what an eager import gives (each way in a fresh process, as the app imports)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from desktop_app.core.model.lazy_type_packages import Member, members_only

GENERATED = """
from __future__ import annotations

from .batch import Batch as Batch
from .shared import (
    Metadata as Metadata,
    ChatModel as ChatModel,
)
from .chat.completion import Choice
"""


def test_a_package_that_only_names_its_submodules_members_has_them_read_from_its_compiled_code() -> None:
    found = members_only(compile(GENERATED, "<package>", "exec"))

    assert found is not None
    assert found.members == {
        "Batch": Member("batch", "Batch"),
        "Metadata": Member("shared", "Metadata"),
        "ChatModel": Member("shared", "ChatModel"),
        "Choice": Member("chat.completion", "Choice"),
    }
    assert found.futures == {"annotations": "annotations"}


@pytest.mark.parametrize(
    "extra",
    [
        "import os",
        "from os import path",
        "from ..elsewhere import Thing",
        "from .batch import *",
        "from . import batch",
        "Batch.model_rebuild()",
        "__all__ = ['Batch']",
        "try:\n    from .other import Other\nexcept ImportError:\n    Other = None",
        "from .batch import batch as batch",  # a member named like a submodule the package names
        "def helper():\n    return Batch",
    ],
)
def test_a_package_doing_anything_else_loads_as_written(extra: str) -> None:
    assert members_only(compile(f"{GENERATED}\n{extra}\n", "<package>", "exec")) is None


_PROBE = """
import contextlib, importlib, json, pkgutil, sys
from types import ModuleType
from desktop_app.core.model.lazy_type_packages import type_members_on_first_use

lazy = sys.argv[1] == "lazy"
with type_members_on_first_use() if lazy else contextlib.nullcontext():
    import openai
    with_openai = sorted(name for name in sys.modules if name.startswith("openai.types"))
    walked = pkgutil.walk_packages(openai.types.__path__, "openai.types.")
    packages = ["openai.types"] + [info.name for info in walked if info.ispkg]
    for name in packages:
        importlib.import_module(name)
    with_packages = sum(name.startswith("openai.types") for name in sys.modules)


def named(value):
    qualname = getattr(value, "__qualname__", None)
    return f"{value.__module__}:{qualname}" if qualname and hasattr(value, "__module__") else repr(value)


members = {}
for name in packages:
    package = sys.modules[name]
    names = [n for n in dir(package) if not n.startswith("_")]
    members[name] = {n: named(v) for n in names if not isinstance(v := getattr(package, n), ModuleType)}
from openai.types.chat import ChatCompletionChunk
try:
    openai.types.chat.NoSuchType
    missing = "found"
except AttributeError as exc:
    missing = str(exc)
print(json.dumps({
    "with_openai": len(with_openai),
    "with_packages": with_packages,
    "members": members,
    "chunk": named(ChatCompletionChunk),
    "missing": missing,
    "lazy_packages": sum("__getattr__" in vars(sys.modules[name]) for name in packages),
    "packages": len(packages),
}))
"""


@pytest.fixture(scope="module")
def imported() -> dict[str, dict[str, Any]]:
    """Each way in a process of its own, both at once: which modules an import loads is seen only fresh."""
    runs = {
        way: subprocess.Popen([sys.executable, "-c", _PROBE, way], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for way in ("lazy", "eager")
    }
    found = {}
    for way, run in runs.items():
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()[-3000:]
        found[way] = json.loads(out)
    return found


def test_every_member_resolves_to_what_the_eager_import_gives(imported: dict[str, dict[str, Any]]) -> None:
    lazy, eager = imported["lazy"], imported["eager"]

    assert lazy["packages"] == eager["packages"] > 40
    assert lazy["lazy_packages"] == lazy["packages"]  # every package the SDK generates qualifies
    assert eager["lazy_packages"] == 0
    assert sum(len(names) for names in eager["members"].values()) > 1000
    assert lazy["members"] == eager["members"]
    assert lazy["chunk"] == eager["chunk"] == "openai.types.chat.chat_completion_chunk:ChatCompletionChunk"


def test_the_types_load_as_they_are_named(imported: dict[str, dict[str, Any]]) -> None:
    lazy, eager = imported["lazy"], imported["eager"]

    assert eager["with_openai"] > 400
    assert lazy["with_openai"] < eager["with_openai"] / 3
    assert lazy["with_packages"] < eager["with_packages"] / 3  # every package imported, none of their members
    assert "has no attribute 'NoSuchType'" in lazy["missing"]

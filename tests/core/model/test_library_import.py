"""litellm's import, as the app makes it (in a fresh process): its Anthropic tokenizer left unparsed
with counting unchanged, its schemas deferred yet each one built where it is first used, and the
OpenAI SDK's types imported as they are named."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

_PROBE = """
import json, sys
opened_while_importing = []

def watch(event, args):
    if event == "open" and str(args[0]).endswith("anthropic_tokenizer.json"):
        utils = sys.modules.get("litellm.utils")
        opened_while_importing.append(utils is None or not hasattr(utils, "claude_json_str"))

sys.addaudithook(watch)
import pydantic

deferred = []  # every type adapter made to wait for its first use
make_adapter = pydantic.TypeAdapter.__init__


def recording(adapter, tp, *, _parent_depth=2, **rest):
    make_adapter(adapter, tp, _parent_depth=_parent_depth + 1, **rest)
    if rest.get("config") == {"defer_build": True}:
        deferred.append(adapter)


pydantic.TypeAdapter.__init__ = recording
from desktop_app.core.chat.tokens import count_tokens
from desktop_app.core.model.llm import litellm_module, ready_litellm
from desktop_app.core.model.tokenizer_file import FILE, PACKAGE
from importlib import resources

litellm = litellm_module()
opened = list(opened_while_importing)
deferred_at_import = len(deferred)
built_at_import = sum(adapter.pydantic_complete for adapter in deferred)
ready_litellm()  # the warm-up's offline call builds what a request needs


def first_use(adapter):
    try:
        adapter.validator.validate_python  # the stand-in builds the schema here, as at a first use
    except Exception as exc:
        return f"{adapter!r}: {type(exc).__name__}: {exc}"[:300]
    return None if adapter.pydantic_complete else f"{adapter!r}: not built"


failures = [failure for adapter in deferred if (failure := first_use(adapter))]

from litellm.litellm_core_utils.token_counter import _get_count_function
from litellm.rust_bridge.tokenizer import from_str

text = resources.files(PACKAGE).joinpath(FILE).read_text(encoding="utf-8")
MODEL = "claude-sonnet-4-5"
words = "The quick brown fox: naïve café, 12345 — ok?"
count_from_file = _get_count_function(None, {"type": "huggingface_tokenizer", "tokenizer": from_str(text)})
print(json.dumps({
    "opened_while_importing": opened,
    "parsed_kept": getattr(litellm.utils, "json_data", None) is not None,
    "same_tokenizer": json.loads(litellm.utils.claude_json_str) == json.loads(text),
    "anthropic": litellm.utils.uses_anthropic_tokenizer(MODEL),
    "count": count_tokens(MODEL, words),
    "expected": count_from_file(words),
    "deferred": deferred_at_import,
    "built_at_import": built_at_import,
    "failures": failures,
    "openai_types": sum(name.startswith("openai.types.") for name in sys.modules),
}))
"""


@pytest.fixture(scope="module")
def imported() -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return seen


def test_the_import_never_parses_the_anthropic_tokenizer_and_counting_is_unchanged(imported: dict[str, Any]) -> None:
    # The file is read once, after litellm.utils has its string: never parsed by the import.
    assert imported["opened_while_importing"] == [False]
    assert imported["parsed_kept"] is False  # the parsed document (about 9 MB) was never made
    assert imported["same_tokenizer"] is True
    assert imported["anthropic"] is True
    assert imported["count"] == imported["expected"] > 0


def test_each_deferred_schema_builds_where_it_is_first_used(imported: dict[str, Any]) -> None:
    # Hundreds of litellm's type adapters wait for a first use (a few are used by the import itself) ...
    assert imported["deferred"] > 300
    assert imported["built_at_import"] < imported["deferred"] // 10
    # ... and every one builds then, from code far from where it was made.
    assert imported["failures"] == []


def test_the_import_and_a_first_call_load_only_the_openai_types_they_name(imported: dict[str, Any]) -> None:
    # The SDK's type packages would import about 1,050 modules; the import and its first call name about 400.
    assert 100 < imported["openai_types"] < 600

"""litellm's import leaves its Anthropic tokenizer unparsed, and the tokenizer counts as before."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
opened_while_importing = []

def watch(event, args):
    if event == "open" and str(args[0]).endswith("anthropic_tokenizer.json"):
        utils = sys.modules.get("litellm.utils")
        opened_while_importing.append(utils is None or not hasattr(utils, "claude_json_str"))

sys.addaudithook(watch)
from desktop_app.core.chat.tokens import count_tokens
from desktop_app.core.model.llm import litellm_module
from desktop_app.core.model.tokenizer_file import FILE, PACKAGE
from importlib import resources

litellm = litellm_module()
from litellm.litellm_core_utils.token_counter import _get_count_function
from litellm.rust_bridge.tokenizer import from_str
opened = list(opened_while_importing)
text = resources.files(PACKAGE).joinpath(FILE).read_text(encoding="utf-8")
from_file = from_str(text)
MODEL = "claude-sonnet-4-5"
words = "The quick brown fox: naïve café, 12345 — ok?"
print(json.dumps({
    "opened_while_importing": opened,
    "parsed_kept": getattr(litellm.utils, "json_data", None) is not None,
    "same_tokenizer": json.loads(litellm.utils.claude_json_str) == json.loads(text),
    "anthropic": litellm.utils.uses_anthropic_tokenizer(MODEL),
    "count": count_tokens(MODEL, words),
    "expected": _get_count_function(None, {"type": "huggingface_tokenizer", "tokenizer": from_file})(words),
}))
"""


def test_the_import_never_parses_the_anthropic_tokenizer_and_counting_is_unchanged() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    # The file is read once, after litellm.utils has its string: never parsed by the import.
    assert seen["opened_while_importing"] == [False]
    assert seen["parsed_kept"] is False  # the parsed document (about 9 MB) was never made
    assert seen["same_tokenizer"] is True
    assert seen["anthropic"] is True
    assert seen["count"] == seen["expected"] > 0

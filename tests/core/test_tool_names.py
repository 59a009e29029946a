"""Model-facing tool names: valid for providers, unique, reversible and deterministic."""

from __future__ import annotations

import random

import pytest

from desktop_app.core.tool_names import (
    TOOL_NAME_PATTERN,
    ToolNameMap,
    ToolNamer,
    build_tool_names,
    sanitize_name_part,
)

RESERVED = frozenset({"read_resource", "invoke_prompt", "search_resources"})


def assert_valid_and_reversible(names: ToolNameMap, pairs: list[tuple[str, str]]) -> None:
    exposed = [names.exposed(server, tool) for server, tool in pairs]
    assert len(set(exposed)) == len(set(pairs)), "names must be unique"
    for (server, tool), name in zip(pairs, exposed, strict=True):
        assert TOOL_NAME_PATTERN.match(name), name
        assert name not in RESERVED
        assert names.resolve(name) == (server, tool)


def test_plain_names_are_server_double_underscore_tool() -> None:
    names = build_tool_names([("files", "read_file"), ("git", "status")], RESERVED)
    assert names.exposed("files", "read_file") == "files__read_file"
    assert names.exposed("git", "status") == "git__status"
    assert names.resolve("git__status") == ("git", "status")
    assert len(names) == 2


def test_same_tool_on_two_servers_gets_two_names() -> None:
    names = build_tool_names([("a", "search"), ("b", "search")], RESERVED)
    assert names.exposed("a", "search") == "a__search"
    assert names.exposed("b", "search") == "b__search"


def test_server_tool_named_like_a_reserved_client_tool_is_prefixed() -> None:
    names = build_tool_names([("fixture", "read_resource")], RESERVED)
    assert names.exposed("fixture", "read_resource") == "fixture__read_resource"
    assert names.resolve("read_resource") is None


def test_a_plain_name_equal_to_a_reserved_name_is_hashed() -> None:
    names = build_tool_names([("my", "tool")], frozenset({"my__tool"}))
    name = names.exposed("my", "tool")
    assert name != "my__tool"
    assert name.startswith("my__tool_") and TOOL_NAME_PATTERN.match(name)
    assert names.resolve(name) == ("my", "tool")


def test_disallowed_characters_are_sanitized() -> None:
    names = build_tool_names([("my server", "do.thing/now")], RESERVED)
    assert names.exposed("my server", "do.thing/now") == "my_server__do_thing_now"
    assert sanitize_name_part("ünïcode ✓") == "_n_code__"


def test_servers_colliding_after_sanitizing_stay_distinct_and_the_exact_name_wins() -> None:
    pairs = [("a b", "t"), ("a_b", "t")]
    names = build_tool_names(pairs, RESERVED)
    assert names.exposed("a_b", "t") == "a_b__t"
    hashed = names.exposed("a b", "t")
    assert hashed.startswith("a_b__t_") and len(hashed) == len("a_b__t_") + 8
    assert_valid_and_reversible(names, pairs)


def test_empty_names_get_a_placeholder_without_stealing_a_real_name() -> None:
    pairs = [("", "t"), ("unnamed", "t"), ("srv", "")]
    names = build_tool_names(pairs, RESERVED)
    assert names.exposed("unnamed", "t") == "unnamed__t"
    assert names.exposed("", "t").startswith("unnamed__t_")
    assert names.exposed("srv", "") == "srv__unnamed"
    assert_valid_and_reversible(names, pairs)


def test_double_underscores_inside_names_do_not_confuse_resolution() -> None:
    pairs = [("a", "b__c"), ("a__b", "c")]
    names = build_tool_names(pairs, RESERVED)
    assert names.exposed("a", "b__c") == "a__b__c"
    assert names.exposed("a__b", "c") != "a__b__c"
    assert_valid_and_reversible(names, pairs)


def test_long_names_are_truncated_uniquely_and_stably() -> None:
    server = "s" * 100
    pairs = [(server, "t" * 90 + "one"), (server, "t" * 90 + "two"), ("short", "x" * 200), ("y" * 200, "go")]
    names = build_tool_names(pairs, RESERVED)
    assert_valid_and_reversible(names, pairs)
    for pair in pairs:
        assert len(names.exposed(*pair)) == 64
    assert names.exposed("short", "x" * 200).startswith("short__xxx")
    assert names.exposed("y" * 200, "go").startswith("y" * 24)
    assert "__go_" in names.exposed("y" * 200, "go")
    assert build_tool_names(reversed(pairs), RESERVED).exposed(*pairs[0]) == names.exposed(*pairs[0])


def test_names_do_not_depend_on_input_order_and_duplicates_are_ignored() -> None:
    pairs = [("a b", "t"), ("a_b", "t"), ("x", "y"), ("", "z"), ("k" * 70, "v")]
    reference = build_tool_names(pairs, RESERVED)
    for seed in range(5):
        shuffled = pairs * 2
        random.Random(seed).shuffle(shuffled)
        again = build_tool_names(shuffled, RESERVED)
        assert sorted(again.items()) == sorted(reference.items())


def test_tool_names_that_mimic_hash_suffixes_cannot_collide() -> None:
    first = build_tool_names([("a b", "t"), ("a_b", "t")], RESERVED)
    mimic = first.exposed("a b", "t")  # e.g. "a_b__t_1234abcd"
    server_tool = mimic.split("__", 1)[1]
    pairs = [("a b", "t"), ("a_b", "t"), ("a_b", server_tool)]
    names = build_tool_names(pairs, RESERVED)
    assert names.exposed("a_b", server_tool) == mimic  # the literal name needs no hash
    assert names.exposed("a b", "t") != mimic
    assert_valid_and_reversible(names, pairs)


def test_many_adversarial_names_stay_valid_unique_and_reversible() -> None:
    rng = random.Random(42)
    alphabet = "ab _-.é/✓__"
    pairs = sorted(
        {
            (
                "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))),
                "".join(rng.choices(alphabet, k=rng.randint(0, 70))),
            )
            for _ in range(400)
        }
    )
    names = build_tool_names(pairs, RESERVED | {"ab__ab"})
    assert len(names) == len(pairs)
    assert_valid_and_reversible(names, pairs)


def test_unknown_lookups() -> None:
    names = build_tool_names([("a", "b")], RESERVED)
    assert names.resolve("nope") is None
    assert "a__b" in names and "nope" not in names
    with pytest.raises(KeyError, match="unknown tool"):
        names.exposed("a", "missing")


def test_tool_namer_uses_its_reserved_set_and_rejects_invalid_reserved_names() -> None:
    namer = ToolNamer(iter(["srv__x"]))
    assert namer.reserved == frozenset({"srv__x"})
    assert namer.build([("srv", "x")]).exposed("srv", "x") != "srv__x"
    with pytest.raises(ValueError, match="not valid"):
        ToolNamer(["has space"])

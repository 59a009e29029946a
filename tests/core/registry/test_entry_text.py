"""Entry text written from raw text expands back to exactly that text; only this install's secrets
become placeholders, and a slot's mark cannot be forged by whoever wrote the text."""

from __future__ import annotations

import pytest

from desktop_app.core.expansion import resolve_server
from desktop_app.core.registry.entry_text import SecretSlots
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.server_config import ServerConfig, TransportKind

TRICKY = ["${HOME}", "$${HOME}", "$$${HOME}", "a$", "${", "$", "{x}", "$ {x}", "${secret:KEY}", "x${y", "$$$"]
STORE = {"KEY": "sk-stored", "OWN": "own-secret"}
ENVIRON = {"HOME": "/home/me", "y": "why"}


def expanded(text: str) -> str:
    config = ServerConfig(name="t", transport=TransportKind.STDIO, command="x", args=(text,))
    return resolve_server(config, STORE, ENVIRON).config.args[0]


@pytest.mark.parametrize("left", TRICKY)
@pytest.mark.parametrize("right", TRICKY)
def test_text_expands_to_itself_however_it_was_put_together(left: str, right: str) -> None:
    slots = SecretSlots()
    assert expanded(slots.entry(left + right)) == left + right


def test_only_slots_become_secrets() -> None:
    slots = SecretSlots()
    text = "Bearer " + slots.slot("OWN") + " ${secret:KEY}"
    assert slots.entry(text) == "Bearer ${secret:OWN} $${secret:KEY}"
    assert expanded(slots.entry(text)) == "Bearer own-secret ${secret:KEY}"
    forged = "\x00" + "0" * 24 + ":KEY\x00"  # a mark from text, not from these slots
    assert expanded(slots.entry(forged)) == forged
    assert slots.holds_secret(text) and not slots.holds_secret(forged)


def test_a_dollar_right_before_a_secret_is_refused() -> None:
    slots = SecretSlots()
    with pytest.raises(PlanError, match=r"cannot have a '\$' right before a secret"):
        slots.entry("cost$" + slots.slot("OWN"))

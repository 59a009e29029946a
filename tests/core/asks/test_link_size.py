"""Links have a size: a 100 kB address from a real server is refused without asking, with the same
"not asked" error the flood guard gives; a long but ordinary one is offered in a short form (its
host in full, its path cut in the middle) with the whole address kept for opening and copying."""

from __future__ import annotations

import pytest

from desktop_app.core.asks.context import NOT_ASKED
from desktop_app.core.asks.elicitation import ElicitReply, UrlQuestion
from desktop_app.core.asks.link_check import MAX_URL_CHARS, check_link
from tests.core.asks.hosting import ERAS, asking_config, asking_host, call_json, host_notes, refusal, text_of

pytestmark = pytest.mark.anyio


def long_url(length: int, host: str = "login.example.com") -> str:
    head = f"https://{host}/authorize?state="
    return head + "a" * (length - len(head))


async def test_a_100_kb_link_from_a_real_server_is_refused_as_not_asked() -> None:
    url = long_url(100_204)
    async with asking_host(lambda q: ElicitReply("accept"), asking_config("legacy")) as (host, asker):
        connection = host.connection("asking")
        outcome = text_of(await connection.call_tool("ask_link", {"url": url, "report": True}))
        assert outcome == (
            f"error {NOT_ASKED}: MCP Desk refused a link: its address is 100,204 characters long;"
            f" links longer than {MAX_URL_CHARS:,} characters are not shown"
        )
        assert asker.asked == []  # nothing was put to the user
        [note] = [n for n in host_notes(connection) if n.startswith("refused a link")]
        assert len(note) < 200  # the log line does not carry the address either


@pytest.mark.parametrize("era", ERAS)
async def test_a_100_kb_link_is_refused_in_both_eras(era: str) -> None:
    async with asking_host(lambda q: ElicitReply("accept"), asking_config(era)) as (host, asker):
        said = await refusal(host.connection("asking"), "ask_link", {"url": long_url(100_204)})
        assert "its address is 100,204 characters long" in said and asker.asked == []


async def test_a_300_character_link_is_asked_about_with_a_short_form_and_the_whole_address() -> None:
    url = long_url(300)
    async with asking_host(lambda q: ElicitReply("accept"), asking_config("legacy")) as (host, asker):
        assert await call_json(host.connection("asking"), "ask_link", {"url": url}) == {"action": "accept"}
    [question] = asker.asked
    assert isinstance(question, UrlQuestion) and question.link.url == url  # opened and copied whole
    short = question.link.short
    assert short.startswith("https://login.example.com/authorize?state=aaa") and "…" in short
    assert len(short) <= 100 and short.endswith("a" * 16)


def test_the_short_form_keeps_the_host_and_drops_a_user_name() -> None:
    link = check_link("https://apple.com@evil.example:8443/" + "p/" * 100)
    assert link.short.startswith("https://evil.example:8443/p/p/") and "apple.com" not in link.short
    assert any(w.startswith("misleading") for w in link.warnings)  # the user name is still called out
    assert check_link("https://example.com/a?b=1").short == "https://example.com/a?b=1"  # short ones whole


def test_the_limit_is_exact() -> None:
    assert check_link(long_url(MAX_URL_CHARS)).problem is None
    assert check_link(long_url(MAX_URL_CHARS + 1)).problem == (
        f"its address is {MAX_URL_CHARS + 1:,} characters long; links longer than {MAX_URL_CHARS:,} characters"
        " are not shown"
    )

"""The consent card shows the whole command, wraps rather than cuts, and answers only on a click."""

from __future__ import annotations

import asyncio
import shlex
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from desktop_app.core.registry.install import LOCAL_WARNING, InstallConsent, InstallReply, consent_for
from desktop_app.core.registry.plan import InstallPlan
from desktop_app.core.sandbox.probe import BUBBLEWRAP, SandboxSupport
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.secret_store import SecretBackend
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.qt_kit.theme import tokens
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.gallery.consent_card import ConsentCard
from tests.hosting import eventually
from tests.window_kit import run_in_qt

LONG = tuple(
    ["docker", "run", "-i", "--rm"] + [f"--mount=type=bind,src=/very/long/path/number/{i},dst=/p{i}" for i in range(12)]
)


def test_whole_command_and_the_answers(qapp: QApplication) -> None:
    host = QWidget()
    host.resize(520, 900)
    layout = QVBoxLayout(host)
    asker = CardAsker(layout.addWidget)
    asker.register(InstallConsent, ConsentCard)
    question = InstallConsent(
        server="weather",
        source="oci package ghcr.io/acme/weather 0.5.0",
        command=LONG,
        env=(("WEATHER_API_KEY", "${secret:WEATHER_API_KEY}"),),
        secrets=("WEATHER_API_KEY",),
        notes=("The registry marks this server as deprecated.",),
    )

    async def scenario() -> None:
        host.show()
        answer = asyncio.ensure_future(asker.ask(question))
        await eventually(lambda: len(asker.pending) == 1)
        card = asker.pending[0]
        assert isinstance(card, ConsentCard)
        await eventually(lambda: card.command.width() > 100)
        assert card.command.toPlainText() == shlex.join(LONG)  # every argument, in order
        assert card.settings is not None and card.settings.toPlainText() == "WEATHER_API_KEY=${secret:WEATHER_API_KEY}"
        shown = card.command.document().size().height() * card.command.fontMetrics().lineSpacing()
        assert shown <= card.command.height() and card.command.document().size().height() > 2  # wrapped, all visible
        texts = [w.text() for w in card.findChildren(type(card.title))]
        assert any(LOCAL_WARNING in t for t in texts) and any("deprecated" in t for t in texts)
        assert card.cancel.isDefault() and not card.install.isDefault()  # Enter does not install
        assert card.sandbox is None  # a container image: Docker's to confine, not the sandbox's
        card.install.click()
        assert await answer == InstallReply(True, False)
        assert card.outcome.text() == "You agreed."

        answer = asyncio.ensure_future(asker.ask(question))
        await eventually(lambda: len(asker.pending) == 1)
        asker.pending[0].cancel.click()  # type: ignore[attr-defined]
        assert (await answer).install is False

        answer = asyncio.ensure_future(asker.ask(question))
        await eventually(lambda: len(asker.pending) == 1)
        asker.withdraw("The window was closed: nothing was installed.")
        assert (await answer).install is False  # no answer is no

    run_in_qt(qapp, scenario())
    host.close()


def test_publisher_text_is_shown_plain_and_escaped(qapp: QApplication) -> None:
    async def scenario() -> None:  # a card's answer is a future of the running loop
        question = InstallConsent(
            server="weather",
            source="Server Card io.example/weather 2.0.0 on example.com\u202e",
            url="https://example.com/mcp/\u202etxt.exe",
            headers=(("X-Note", "a\x1b[2Jb"),),
            notes=("<img src='file:///etc/passwd'><b>trusted</b>\u202e",),
        )
        card = ConsentCard(question)
        assert card.command.toPlainText() == "https://example.com/mcp/\\u202etxt.exe"
        assert card.settings is not None and card.settings.toPlainText() == "X-Note: a\\x1b[2Jb"
        assert "on example.com\\u202e" in card.origin.text()
        [note] = [
            label
            for label in card.findChildren(QLabel)
            if label.text().startswith("<img")  # shown as the text it is, not drawn
        ]
        assert note.textFormat() == Qt.TextFormat.PlainText and note.text().endswith("<b>trusted</b>\\u202e")

    run_in_qt(qapp, scenario())


def test_where_the_secrets_go_is_said_and_a_plaintext_store_is_a_caution(qapp: QApplication) -> None:
    config = ServerConfig("weather", TransportKind.STDIO, command="/usr/bin/weather", env={"KEY": "${secret:KEY}"})
    plan = InstallPlan(config=config, source="npm package weather 1.0.0", secrets={"KEY": "k"})
    keyring = SecretBackend("os-keyring", "Secret Service", encrypted=True)
    plaintext = SecretBackend("plaintext-file", "Plaintext file", encrypted=False, path=Path("/home/me/secrets.cfg"))

    async def scenario() -> None:
        shown = {}
        for store in (keyring, plaintext):
            card = ConsentCard(consent_for(plan, store=store))
            label = card.findChild(QLabel, "consentSecrets")
            assert isinstance(label, QLabel)
            shown[store.kind] = (label.text(), label.styleSheet())
        theme = tokens()
        assert shown["os-keyring"] == ("Stored in the system keyring: KEY", f"color: {theme.muted};")
        assert shown["plaintext-file"] == (
            "Stored in a plaintext file, not encrypted (/home/me/secrets.cfg): KEY",
            f"color: {theme.caution};",
        )

    run_in_qt(qapp, scenario())


def sandboxed_plan() -> InstallPlan:
    settings = SandboxSettings(allow_write=("/home/me/notes",), allowed_domains=("registry.npmjs.org",))
    config = ServerConfig(
        "files",
        TransportKind.STDIO,
        command="/usr/bin/npx",
        args=("-y", "--", "@acme/files@1.0.0", "/home/me/notes"),
        sandbox_enabled=True,
        sandbox=settings,
    )
    why = {"/home/me/notes": "you gave it as target_dir", "registry.npmjs.org": "npx downloads it"}
    return InstallPlan(config=config, source="npm package @acme/files 1.0.0", sandbox_why=why)


def test_the_sandbox_its_rights_and_running_without_it(qapp: QApplication) -> None:
    host = QWidget()
    layout = QVBoxLayout(host)
    asker = CardAsker(layout.addWidget)
    asker.register(InstallConsent, ConsentCard)
    question = consent_for(sandboxed_plan(), support=SandboxSupport(BUBBLEWRAP, "/usr/bin/bwrap"))

    async def scenario() -> None:
        host.show()
        answer = asyncio.ensure_future(asker.ask(question))
        await eventually(lambda: len(asker.pending) == 1)
        card = asker.pending[0]
        assert isinstance(card, ConsentCard) and card.sandbox is not None
        choice = card.sandbox
        assert choice.box.text() == "Run it in the sandbox (bubblewrap)" and choice.box.isChecked()
        assert choice.rights.text() == (
            "May write to: /home/me/notes (you gave it as target_dir)\n"
            "May connect to: registry.npmjs.org (npx downloads it)"
        )
        assert choice.without.isHidden() and choice.unavailable.isHidden()
        choice.box.click()
        assert choice.rights.isHidden() and not choice.without.isHidden()
        assert choice.without.styleSheet() == f"color: {tokens().caution};"
        card.install.click()
        assert await answer == InstallReply(True, sandboxed=False)
        assert card.outcome.text() == "You agreed, without the sandbox." and not choice.box.isEnabled()

    run_in_qt(qapp, scenario())
    host.close()


def test_where_nothing_can_sandbox_it_the_card_says_it_will_not_start(qapp: QApplication) -> None:
    problem = "bubblewrap (bwrap) is not installed: install the bubblewrap package"

    async def scenario() -> None:
        card = ConsentCard(consent_for(sandboxed_plan(), support=SandboxSupport(None, problem=problem)))
        assert card.sandbox is not None and card.sandbox.box.isChecked()  # still the default: never quietly off
        assert not card.sandbox.unavailable.isHidden()
        assert card.sandbox.unavailable.text() == (
            f"This computer cannot sandbox it now: {problem}. Sandboxed, it will not start until that is fixed;"
            " untick “Run it in the sandbox” to run it without."
        )
        card.sandbox.box.click()
        assert card.sandbox.unavailable.isHidden()

    run_in_qt(qapp, scenario())


def test_a_required_sandbox_greys_the_choice_with_its_reason(qapp: QApplication) -> None:
    async def scenario() -> None:
        question = consent_for(sandboxed_plan(), support=SandboxSupport(BUBBLEWRAP, "/usr/bin/bwrap"))
        assert question.sandbox is not None
        required = replace(question.sandbox, required="Your organisation runs local servers only sandboxed.")
        card = ConsentCard(replace(question, sandbox=required))
        assert card.sandbox is not None
        box = card.sandbox.box
        assert box.isChecked() and not box.isEnabled() and box.toolTip() == required.required

    run_in_qt(qapp, scenario())

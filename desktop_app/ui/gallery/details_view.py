"""A server's details as the registry, a bundle's manifest or a domain's Server Card describes them;
drawing only.

Every string comes from someone else's document, so all of it is escaped (HTML, and control and
bidi characters written out as `\\x1b`, `\\u202e`, so nothing reorders or hides what is shown),
titles are plain text, and only http(s) links are made clickable.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from functools import partial

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from desktop_app.core.discovery.address import DomainAddress
from desktop_app.core.discovery.discover import FoundServer
from desktop_app.core.discovery.endpoints import endpoints
from desktop_app.core.publisher_document import KeyValue, Transport
from desktop_app.core.registry.choices import KIND_LABELS
from desktop_app.core.registry.manifest import Manifest
from desktop_app.core.registry.model import Package, ServerEntry
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.theme import muted, themed_text, tokens
from desktop_app.qt_kit.tokens import Palette

ICON_SIDE = 48
_STATUS_ROLES = {"deprecated": "caution", "deleted": "danger"}


def _e(text: str) -> str:
    return html.escape(printable(text), quote=True)


def _link(url: str, text: str | None = None) -> str:
    if url.startswith(("https://", "http://")):
        return f'<a href="{_e(url)}">{_e(text or url)}</a>'
    return _e(text or url)


def _inputs(items: Iterable[KeyValue], what: str) -> str:
    rows = []
    for item in items:
        secret = item.is_secret or any(v.is_secret for v in item.variables.values())
        required = item.is_required or any(v.is_required for v in item.variables.values())
        traits = [t for t, on in (("secret", secret), ("required", required)) if on]
        shown = f"{item.name}: {item.value}" if item.value is not None else item.name
        note = f" — {_e(item.description)}" if item.description else ""
        extra = f" <i>({', '.join(traits)})</i>" if traits else ""
        rows.append(f"<li><code>{_e(shown)}</code>{extra}{note}</li>")
    return f"<br>{what}:<ul style='margin-top:2px'>{''.join(rows)}</ul>" if rows else ""


def _package(package: Package, p: Palette) -> str:
    kind = KIND_LABELS.get(package.registry_type.lower(), package.registry_type)
    version = f" {_e(package.version)}" if package.version else ""
    bundle = package.registry_type.lower() == "mcpb"
    name = _link(package.identifier) if bundle else f"<code>{_e(package.identifier)}</code>"
    sha = f"<br><span style='color:{p.muted}'>SHA-256 {_e(package.file_sha256)}</span>" if package.file_sha256 else ""
    body = _inputs(package.environment_variables, "Environment variables")
    return f"<li><b>{_e(kind)}</b> {name}{version}{sha}{body}</li>"


def _remote(remote: Transport, notes: str = "") -> str:
    kind = "Server-sent events" if remote.type == "sse" else "Streamable HTTP"
    variables = "".join(
        f"<li><code>{{{_e(n)}}}</code>{' <i>(required)</i>' if v.is_required else ''}"
        f"{' — ' + _e(v.description) if v.description else ''}</li>"
        for n, v in remote.variables.items()
    )
    var_block = f"<br>URL variables:<ul style='margin-top:2px'>{variables}</ul>"
    return (
        f"<li><b>{kind}</b> <code>{_e(remote.url or '')}</code>{notes}"
        f"{var_block if variables else ''}{_inputs(remote.headers, 'Headers')}</li>"
    )


def _section(title: str, items: str) -> str:
    return f"<h4 style='margin-bottom:0'>{title}</h4><ul>{items}</ul>"


def entry_html(entry: ServerEntry, palette: Palette | None = None) -> str:
    """Description, links, status and every way to install, as rich text in `palette`'s colours (the theme's)."""
    p = palette or tokens()
    server, meta = entry.server, entry.official
    parts = [f"<p>{_e(server.description)}</p>"]
    if meta.status != "active":
        colour = getattr(p, _STATUS_ROLES.get(meta.status, "danger"))
        why = f": {_e(meta.status_message)}" if meta.status_message else ""
        parts.append(f"<p style='color:{colour}'><b>{meta.status.capitalize()}</b>{why}</p>")
    links = []
    if server.repository is not None:
        links.append(f"Source: {_link(server.repository.url)}")
    if server.website_url:
        links.append(f"Website: {_link(server.website_url)}")
    if links:
        parts.append("<p>" + "<br>".join(links) + "</p>")
    if server.packages:
        parts.append(_section("Packages", "".join(_package(package, p) for package in server.packages)))
    if server.remotes:
        parts.append(_section("Remote", "".join(map(_remote, server.remotes))))
    if not server.packages and not server.remotes:
        parts.append(f"<p style='color:{p.muted}'>The registry lists no way to install this server.</p>")
    return "".join(parts)


def _lines(items: Iterable[str], colour: str) -> str:
    return "".join(f"<br><span style='color:{colour}'>{_e(item)}</span>" for item in items)


def card_html(found: FoundServer, domain: DomainAddress, palette: Palette | None = None) -> str:
    """A card's description, links and addresses (each with what to know about it), or why it cannot be used;
    in `palette`'s colours (the theme's)."""
    p = palette or tokens()
    card = found.card
    where = f"Described by {_e(domain.host)}" + (f" in {_link(found.card_url)}" if found.card_url else "")
    parts = [f"<p style='color:{p.muted}'>{where}{_lines(found.warnings, p.caution)}</p>"]
    if card is None:
        parts.append(f"<p style='color:{p.danger}'>This card cannot be used: {_e(found.problem or '')}</p>")
        return "".join(parts)
    parts.append(f"<p>{_e(card.description)}</p>")
    links = [f"Source: {_link(card.repository.url)}"] if card.repository is not None else []
    links += [f"Website: {_link(card.website_url)}"] if card.website_url else []
    if links:
        parts.append("<p>" + "<br>".join(links) + "</p>")
    rows = []
    for endpoint in endpoints(card, domain):
        refused = [endpoint.problem] if endpoint.problem else []
        rows.append(_remote(endpoint.remote, _lines(refused, p.danger) + _lines(endpoint.warnings, p.caution)))
    parts.append(
        _section("Connects to", "".join(rows)) if rows else f"<p style='color:{p.muted}'>It lists no address.</p>"
    )
    parts.append(
        f"<p style='color:{p.muted}'>A card is what the domain says about a server: MCP Desk compares it with what the"
        " server says about itself once connected.</p>"
    )
    return "".join(parts)


def manifest_html(manifest: Manifest) -> str:
    """A bundle's description, author, runtime, tools and prompts."""
    parts = [f"<p>{_e(manifest.long_description or manifest.description)}</p>"]
    facts = [f"Runs on: <b>{_e(manifest.server_type)}</b>"]
    if manifest.author:
        facts.append(f"Author: {_e(manifest.author)}")
    if manifest.repository:
        facts.append(f"Source: {_link(manifest.repository)}")
    if manifest.homepage:
        facts.append(f"Website: {_link(manifest.homepage)}")
    if manifest.license:
        facts.append(f"License: {_e(manifest.license)}")
    parts.append("<p>" + "<br>".join(facts) + "</p>")
    for title, names in (("Tools", manifest.tools), ("Prompts", manifest.prompts)):
        if names:
            parts.append(f"<p>{title}: " + ", ".join(f"<code>{_e(n)}</code>" for n in names) + "</p>")
    return "".join(parts)


class DetailsView(QWidget):
    """Icon, title and subtitle on top; the rich-text body below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.icon = QLabel()
        self.icon.setFixedSize(ICON_SIDE, ICON_SIDE)
        self.title = QLabel()
        self.title.setObjectName("detailsTitle")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.subtitle = QLabel()
        self.subtitle.setTextFormat(Qt.TextFormat.PlainText)
        muted(self.subtitle)
        self.subtitle.setWordWrap(True)
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body = QLabel()
        self.body.setObjectName("detailsBody")
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setOpenExternalLinks(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        header = QGridLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.setHorizontalSpacing(12)
        header.addWidget(self.icon, 0, 0, 2, 1, Qt.AlignmentFlag.AlignTop)
        header.addWidget(self.title, 0, 1)
        header.addWidget(self.subtitle, 1, 1)
        header.setColumnStretch(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.body)

    def set_icon(self, icon: QIcon) -> None:
        self.icon.setPixmap(icon.pixmap(ICON_SIDE, ICON_SIDE))

    def show_entry(self, entry: ServerEntry, icon: QIcon) -> None:
        server = entry.server
        self.set_icon(icon)
        self.title.setText(printable(server.display_name))
        self.subtitle.setText(printable(f"{server.name} · version {server.version}"))
        themed_text(self.body, partial(entry_html, entry))

    def show_manifest(self, manifest: Manifest, icon: QIcon, source: str) -> None:
        self.set_icon(icon)
        self.title.setText(printable(manifest.title))
        self.subtitle.setText(printable(f"{manifest.name} · version {manifest.version} · {source}"))
        themed_text(self.body, lambda _palette: manifest_html(manifest))  # replaces an entry's

    def show_card(self, found: FoundServer, icon: QIcon, domain: DomainAddress) -> None:
        self.set_icon(icon)
        self.title.setText(printable(found.display_name))
        card = found.card
        self.subtitle.setText(printable(f"{card.name} · version {card.version}" if card else found.identifier))
        themed_text(self.body, partial(card_html, found, domain))

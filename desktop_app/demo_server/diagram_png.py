"""The demo's architecture diagram: the model, MCP Desk and its servers, drawn as an 800x500 PNG."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_app.demo_server.drawing import (
    ACCENT,
    ACCENT_LIGHT,
    BOLD,
    DIAGRAM_H,
    DIAGRAM_W,
    GREEN_LIGHT,
    INK,
    MUTED,
    WARM,
    WARM_LIGHT,
    WHITE,
    Color,
    arrow,
    inset,
    mupdf,
)

if TYPE_CHECKING:
    import pymupdf


def _box(
    page: pymupdf.Page,
    rect: pymupdf.Rect,
    title: str,
    body: str,
    *,
    stroke: Color,
    fill: Color,
) -> None:
    page.draw_rect(rect, color=stroke, fill=fill, width=1.4, radius=0.08)
    page.insert_textbox(inset(rect, 6, 10, -6, 0), title, fontsize=13, fontname=BOLD, align=1, color=INK)
    if body:
        page.insert_textbox(inset(rect, 6, 30, -6, 0), body, fontsize=10, align=1, color=MUTED, lineheight=1.25)


def build_diagram() -> bytes:
    pymupdf = mupdf()

    doc = pymupdf.open()
    page = doc.new_page(width=DIAGRAM_W, height=DIAGRAM_H)
    page.draw_rect(page.rect, color=None, fill=WHITE)
    page.insert_text((30, 40), "MCP Desk architecture", fontsize=20, fontname=BOLD, color=INK)
    page.insert_text(
        (30, 62),
        "One host, many servers: resources are pulled on demand, tools wait for approval.",
        fontsize=11,
        color=MUTED,
    )

    model = pymupdf.Rect(20, 190, 160, 300)
    _box(page, model, "Language model", "OpenAI, Anthropic,\nlocal models", stroke=WARM, fill=WARM_LIGHT)

    host = pymupdf.Rect(235, 90, 525, 470)
    page.draw_rect(host, color=ACCENT, fill=ACCENT_LIGHT, width=2, radius=0.05)
    page.insert_textbox(
        pymupdf.Rect(host.x0, host.y0 + 10, host.x1, host.y0 + 40),
        "MCP Desk (host)",
        fontsize=15,
        fontname=BOLD,
        align=1,
        color=ACCENT,
    )
    parts = [
        ("Chat + approvals", "you approve every tool call"),
        ("Catalog", "URIs, titles, sizes, tools"),
        ("Viewer", "PDF, images, Markdown, JSON"),
        ("Secrets", "OS keyring, ${secret:NAME}"),
    ]
    for i, (title, body) in enumerate(parts):
        top = host.y0 + 52 + i * 80
        rect = pymupdf.Rect(host.x0 + 20, top, host.x1 - 20, top + 64)
        _box(page, rect, title, body, stroke=ACCENT, fill=WHITE)

    servers = [
        ("Demo server", "stdio - this one", "stdio"),
        ("Filesystem", "stdio child process", "stdio"),
        ("Remote service", "Streamable HTTP", "HTTP"),
    ]
    for i, (title, body, link) in enumerate(servers):
        top = 110 + i * 125
        rect = pymupdf.Rect(615, top, 775, top + 90)
        _box(page, rect, title, body, stroke=(0.25, 0.6, 0.35), fill=GREEN_LIGHT)
        mid = top + 45
        arrow(page, (host.x1 + 4, mid), (rect.x0 - 4, mid), INK, both=True)
        page.insert_text((host.x1 + 22, mid - 8), link, fontsize=10, color=MUTED)

    arrow(page, (model.x1 + 4, 225), (host.x0 - 4, 225), INK)
    arrow(page, (host.x0 - 4, 265), (model.x1 + 4, 265), INK)
    page.insert_text((model.x1 + 8, 217), "tool calls", fontsize=9, color=MUTED)
    page.insert_text((model.x1 + 8, 282), "catalog +", fontsize=9, color=MUTED)
    page.insert_text((model.x1 + 8, 293), "pulled content", fontsize=9, color=MUTED)

    data: bytes = page.get_pixmap(alpha=False).tobytes("png")
    doc.close()
    return data

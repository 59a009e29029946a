"""Images for vision models: one decoded-size limit with the viewer, shrunk to provider limits, said so."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator

import pymupdf
import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.core.content import image_dimensions
from desktop_app.core.host import ServerHost
from desktop_app.core.image_limits import MODEL_MAX_BYTES, MODEL_MAX_SIDE
from tests.engine_kit import run, scripted_engine
from tests.hosting import serving
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.fixture_server import huge_png_bytes

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS]


def _photo(width: int, height: int) -> bytes:
    """A real PNG of `width`×`height` with detail in it (coloured stripes), a few hundred KB."""
    row = b"".join(bytes(((x * 7) % 256, (x * 3) % 256, 128)) for x in range(width))
    pix = pymupdf.Pixmap(pymupdf.csRGB, width, height, row * height, False)
    data: bytes = pix.tobytes("png")
    return data


@pytest.fixture
async def host() -> AsyncIterator[ServerHost]:
    server = MCPServer("images")
    photo = _photo(4000, 3000)

    @server.resource("img://photo.png", name="photo.png", mime_type="image/png")
    def photo_png() -> bytes:
        return photo

    @server.resource("img://bomb.png", name="bomb.png", mime_type="image/png")
    def bomb_png() -> bytes:
        return huge_png_bytes()

    async with serving({"img": server}) as host:
        yield host


async def _read(host: ServerHost, llm: ScriptedLLM, uri: str) -> list[dict[str, object]]:
    llm.queue(calls(ToolCall("read_resource", {"uri": uri})), text("Seen."))
    await run(scripted_engine(host, llm, images_to_model=True), f"Look at {uri}")
    messages: list[dict[str, object]] = llm.bodies()[1]["messages"]
    return messages


async def test_an_image_bomb_never_reaches_the_provider(host: ServerHost, llm: ScriptedLLM) -> None:
    messages = await _read(host, llm, "img://bomb.png")
    assert messages[-1]["role"] == "tool"  # no image turn follows
    assert "[The image is not attached: 30,000×30,000 pixels is over the limit.]" in str(messages[-1]["content"])
    assert len(json.dumps(llm.bodies()[1])) < 50_000


async def test_a_large_image_is_scaled_down_within_provider_limits(host: ServerHost, llm: ScriptedLLM) -> None:
    messages = await _read(host, llm, "img://photo.png")
    tool, image_turn = messages[-2], messages[-1]
    assert "scaled down from 4,000×3,000 px" in str(tool["content"]) and "to 1,568×1,176 px" in str(tool["content"])
    parts = image_turn["content"]
    assert isinstance(parts, list)
    url = parts[1]["image_url"]["url"]
    mime, _, encoded = url.partition(";base64,")
    data = base64.b64decode(encoded)
    assert mime in ("data:image/png", "data:image/jpeg")
    assert len(data) <= MODEL_MAX_BYTES
    dims = image_dimensions(data)
    assert dims == (MODEL_MAX_SIDE, 1176)

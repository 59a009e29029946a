"""One decoded-size limit for every image MCP Desk decodes, and images made fit for a vision model.

A few kilobytes of PNG can claim 30000×30000 pixels (2.7 GB decoded). The viewer, the tool
cards' thumbnails and the model path all check the header against `MAX_DECODED_PIXELS` before
anything decodes. Images for a model must also fit what providers take (Anthropic scales down
past ~1568 px on the long side and refuses files over 5 MB; OpenAI tiles to 2048 px): larger
ones are shrunk in the MuPDF worker process, which decodes PNG and JPEG, and the model is told.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from desktop_app.core.content import human_size, image_dimensions
from desktop_app.core.mupdf_worker import PAGE_BUDGET_S, MupdfWorker, MupdfWorkError

MAX_DECODED_PIXELS: Final = 64_000_000
"""64 megapixels is 256 MB decoded: enough for any photo; larger headers are refused undecoded."""
MODEL_MAX_SIDE: Final = 1568
MODEL_MAX_BYTES: Final = 3_500_000
"""Raw bytes, so the base64 a request carries stays under the 5 MB some providers allow."""
_SHRINKABLE: Final = frozenset({"image/png", "image/jpeg"})

_worker = MupdfWorker()


class ImageTooLarge(ValueError):
    """The header claims more pixels than `MAX_DECODED_PIXELS`: refused before any decoding."""


def check_decoded_size(width: int, height: int) -> None:
    if width * height > MAX_DECODED_PIXELS:
        raise ImageTooLarge(
            f"This image is {width:,}×{height:,} pixels; images over {MAX_DECODED_PIXELS // 1_000_000} megapixels "
            "are not decoded, to protect memory."
        )


@dataclass(frozen=True)
class ModelImage:
    """What to send a vision model for one image: the bytes (None: nothing) and a note for the text."""

    data: bytes | None
    mime_type: str
    note: str


async def image_for_model(data: bytes, mime_type: str) -> ModelImage:
    """The image as a model may receive it: as it is, shrunk to the provider limits, or refused (with why)."""
    dims = image_dimensions(data)
    if dims is not None:
        try:
            check_decoded_size(*dims)
        except ImageTooLarge:
            width, height = dims
            return ModelImage(None, mime_type, f"not attached: {width:,}×{height:,} pixels is over the limit")
    fits = len(data) <= MODEL_MAX_BYTES and (dims is None or max(dims) <= MODEL_MAX_SIDE)
    if fits:
        return ModelImage(data, mime_type, "")
    size = f"{dims[0]:,}×{dims[1]:,} px, " if dims else ""
    if mime_type not in _SHRINKABLE:
        return ModelImage(None, mime_type, f"not attached: {size}{human_size(len(data))} is more than a model takes")
    request = {"op": "shrink_image", "data": data, "max_side": MODEL_MAX_SIDE, "max_bytes": MODEL_MAX_BYTES}
    try:
        shrunk = await _worker.task(request, budget=PAGE_BUDGET_S)
    except MupdfWorkError as exc:
        return ModelImage(None, mime_type, f"not attached: it could not be scaled down ({exc})")
    note = f"scaled down from {size}{human_size(len(data))} to {shrunk['width']:,}×{shrunk['height']:,} px"
    return ModelImage(shrunk["data"], shrunk["mime"], note)

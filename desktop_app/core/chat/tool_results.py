"""Server tool results as the model should read them, with their bytes kept for the UI.

Text stays text; images, audio and binary embedded resources become honest descriptors (base64
is noise to a model and costs thousands of tokens), a resource link becomes a reference the model
can `read_resource`, and an error result is marked so the model does not mistake it for success.
The model reads a result's `content`, and its `structuredContent` (as JSON) only when `content` is
empty, as the tools specification says: a server sends the same result both ways, and saying it
twice costs tokens and invites doubt.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Final

from mcp_types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)

from desktop_app.core.chat.events import ToolBinary
from desktop_app.core.content import ResourceContent, describe_for_model, from_mcp, human_size, image_dimensions

ERROR_MARK: Final = "[The tool reported an error]"


@dataclass(frozen=True)
class ConvertedResult:
    text: str
    is_error: bool
    structured: Any
    binaries: tuple[ToolBinary, ...]


def decode_base64(data: str) -> bytes | None:
    """The bytes of a base64 field, or None when the server sent invalid base64."""
    try:
        return base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        return None


def media_descriptor(kind: str, mime: str, data: bytes | None) -> str:
    """`[Image: image/png, 1.2 KB, 16x12 px. Shown to the user in the app.]`."""
    if data is None:
        return f"[{kind}: {mime}, invalid base64 data from the server.]"
    details = [mime, human_size(len(data))]
    if kind == "Image" and (dims := image_dimensions(data)) is not None:
        details.append(f"{dims[0]}x{dims[1]} px")
    return f"[{kind}: {', '.join(details)}. Shown to the user in the app; not readable here.]"


def link_reference(uri: str, name: str | None, mime: str | None, size: int | None) -> str:
    details = ", ".join(x for x in (name, mime, human_size(size) if size is not None else None) if x)
    label = f" ({details})" if details else ""
    return f"[Resource link: {uri}{label}. Call read_resource with this URI to read it.]"


def embedded_text(content: ResourceContent) -> str:
    """An embedded resource with its provenance, as text or as its descriptor."""
    mime = content.mime_type or "unknown type"
    return f"Embedded resource {content.uri} ({mime}):\n{describe_for_model(content)}"


def convert_tool_result(result: CallToolResult) -> ConvertedResult:
    """Everything the server returned, each block in the form that suits the model."""
    parts: list[str] = []
    binaries: list[ToolBinary] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, ImageContent | AudioContent):
            kind = "Image" if isinstance(block, ImageContent) else "Audio"
            data = decode_base64(block.data)
            parts.append(media_descriptor(kind, block.mime_type, data))
            if data is not None:
                binaries.append(ToolBinary(block.mime_type, data))
        elif isinstance(block, EmbeddedResource):
            content = from_mcp(block.resource)
            parts.append(embedded_text(content))
            if content.data is not None:
                binaries.append(ToolBinary(content.mime_type or "application/octet-stream", content.data, content.uri))
        elif isinstance(block, ResourceLink):
            parts.append(link_reference(block.uri, block.name, block.mime_type, block.size))
        else:
            parts.append(f"[Unsupported content block of type {getattr(block, 'type', type(block).__name__)!r}]")
    structured = result.structured_content
    if structured is not None and not result.content:
        parts.append("Structured result (JSON):\n" + json.dumps(structured, indent=2, ensure_ascii=False))
    text = "\n\n".join(parts) if parts else "(the tool returned no content)"
    if result.is_error:
        text = f"{ERROR_MARK}\n{text}"
    return ConvertedResult(text, bool(result.is_error), structured, tuple(binaries))

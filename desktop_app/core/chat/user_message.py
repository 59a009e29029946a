"""The user's message as the model gets it: the text, each attached resource read in whole, then
what MCP App views asked the model to know."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_app.core.chat.events import ResourceRead
from desktop_app.core.chat.synthetic import image_message, read_for_model
from desktop_app.core.chat.turn_host import TurnHost
from desktop_app.core.model.settings import ChatOptions
from desktop_app.core.resource_ref import ResourceRef


class AttachmentError(ValueError):
    """An attachment could not be read; the message is not sent and the conversation is unchanged."""


async def user_message(
    host: TurnHost,
    options: ChatOptions,
    text: str,
    attachments: Sequence[ResourceRef],
    context: Sequence[str],
    chat: str,
) -> tuple[dict[str, Any], list[ResourceRead]]:
    """The user message of conversation `chat` with its attachments read in, each from its own server (an
    attached skill is loaded for that chat), and the reads to show; raises `AttachmentError`."""
    parts = [text] if text.strip() else []
    images: list[dict[str, Any]] = []
    reads: list[ResourceRead] = []
    for attachment in attachments:
        catalog = host.catalog
        out = await read_for_model(
            host, catalog, attachment.uri, options, server=attachment.server or None, search_offered=False, chat=chat
        )
        if out.is_error or out.server is None:
            raise AttachmentError(f"Cannot attach {attachment.uri}: {out.text}")
        reads.append(ResourceRead(attachment.uri, out.server, out.contents, out.truncated))
        resource = catalog.resource(attachment.uri, out.server)
        name = resource.name if resource is not None else attachment.uri.rsplit("/", 1)[-1]
        mime = (resource.mime_type if resource is not None else None) or out.contents[0].mime_type or "unknown type"
        parts.append(f"Attached resource {attachment.uri} ({name}, {mime}):\n{out.text}")
        if out.images:
            images.extend(image_message(out.images)["content"])
    parts.extend(context)
    joined = "\n\n".join(parts)
    if images:
        return {"role": "user", "content": [{"type": "text", "text": joined}, *images]}, reads
    return {"role": "user", "content": joined}, reads

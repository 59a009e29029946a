"""The model can name the server of a URI, and a link is read from the server that wrote it unless one other
server alone offers it: never from whichever server's name sorts first."""

from __future__ import annotations

from mcp_types import GetPromptResult, PromptMessage, Resource, ResourceLink

from desktop_app.core.catalog import Catalog, ServerCatalog
from desktop_app.core.chat.prompts import PromptLink, prompt_draft
from desktop_app.core.chat.synthetic import READ_RESOURCE, synthetic_tool_specs
from desktop_app.core.model.settings import ChatOptions

SHARED = "note://shared.md"
ONLY_AA = "note://aa-only.md"


def catalog() -> Catalog:
    def listing(name: str, *uris: str) -> ServerCatalog:
        return ServerCatalog(name, resources=tuple(Resource(uri=u, name=u.rsplit("/", 1)[-1]) for u in uris))

    return Catalog({"aa": listing("aa", SHARED, ONLY_AA), "zz": listing("zz", SHARED)})


def test_read_resource_takes_an_optional_server() -> None:
    [spec] = [s for s in synthetic_tool_specs(ChatOptions(), search=False) if s["function"]["name"] == READ_RESOURCE]
    parameters = spec["function"]["parameters"]
    assert parameters["properties"]["server"]["type"] == "string"
    assert parameters["required"] == ["uri"]
    assert "Give `server` only when more than one server offers the URI" in spec["function"]["description"]


def test_a_prompt_s_links_are_read_from_its_own_server_unless_one_other_alone_offers_them() -> None:
    links = [
        PromptMessage(role="user", content=ResourceLink(type="resource_link", uri=uri, name=name))
        for uri, name in ((SHARED, "shared"), (ONLY_AA, "aa only"))
    ]
    draft = prompt_draft(GetPromptResult(messages=links), "zz", "brief", catalog())

    assert draft.links == (PromptLink("zz", SHARED, "shared"), PromptLink("aa", ONLY_AA, "aa only"))

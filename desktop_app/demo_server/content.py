"""The demo server's text content, kept apart from protocol wiring so it can be edited as prose."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Final

SERVER_NAME: Final = "MCP Desk Demo"

INSTRUCTIONS: Final = """\
This is MCP Desk's built-in demo server. It exists so a fresh install has something to explore.

Resources (read them with read_resource when they are relevant; the catalog lists their sizes):
- demo://guide: "Getting started with MCP Desk", a long Markdown guide. Read it to answer questions \
about MCP, MCP Desk, configuration, secrets, shortcuts or troubleshooting.
- demo://report.pdf: a multi-page PDF report with a table and a chart.
- demo://diagram.png: an architecture diagram of MCP Desk and its servers.
- demo://settings.json: example MCP Desk settings.
- demo://notes/{topic}: a short note per topic (resources, templates, prompts, tools, approvals, \
transports, secrets, completions, shortcuts).
- demo://notes-log: the notes added with the add_note tool.

Tools: add_note(title, text) appends to the notes log (a visible side effect, so the user is asked to \
approve it); word_count(uri) and get_time() only read; show_notes_board() shows the notes log as an \
interactive board (an MCP App) where the user can read, chart and add notes.
Prompts: summarize_resource(uri, style) and plan_task(goal, constraints).
"""

GUIDE_URI: Final = "demo://guide"
REPORT_URI: Final = "demo://report.pdf"
DIAGRAM_URI: Final = "demo://diagram.png"
SETTINGS_URI: Final = "demo://settings.json"
NOTES_LOG_URI: Final = "demo://notes-log"
NOTE_TEMPLATE: Final = "demo://notes/{topic}"

SUMMARY_STYLES: Final[dict[str, str]] = {
    "brief": "in two or three sentences that a busy reader can take in at a glance",
    "detailed": "section by section, keeping the important specifics (names, numbers, steps)",
    "bullets": "as a short bulleted list of the key points, most important first",
}

TOPIC_NOTES: Final[dict[str, str]] = {
    "resources": """\
# Resources

A resource is content with a URI, a name and a MIME type: Markdown, a PDF, an image, JSON. Reading a
resource never changes anything, so MCP Desk reads resources without asking for approval.

The model does not receive every resource up front. It sees a catalog (URI, title, type, size,
description) and calls `read_resource` for what it needs, so its context stays small and each document
arrives whole. Binary content such as `demo://report.pdf` is shown to you natively and reaches the model
as text or as an image, never as base64.

See also: [templates](templates), [approvals](approvals), and the [protocol's resources page](https://modelcontextprotocol.io/docs/concepts/resources).
""",
    "templates": """\
# Resource templates

A template such as `demo://notes/{topic}` stands for a family of resources the server cannot list one
by one. Fill in the variable and read the result. Servers can offer completions for template
variables: type `ap` for `topic` here and `approvals` is suggested. Unknown values give a clear error.

See also: [resources](resources) and [completions](completions).
""",
    "prompts": """\
# Prompts

A prompt is a reusable conversation starter written by the server's author, with required and optional
arguments. You choose a prompt, fill in its arguments (with completions where the server offers them)
and MCP Desk inserts the messages it returns into the conversation.

Try `summarize_resource` with `uri` = `demo://guide` and `style` = `bullets`, or `plan_task` with a goal
of your own.
""",
    "tools": """\
# Tools

Tools are actions the model can ask to run, with arguments described by a JSON schema. Unlike resources
and prompts, tools may have side effects, so every call is shown to you on an approval card first.

The demo offers `add_note` (appends to `demo://notes-log`), and the read-only `word_count` and
`get_time`.
""",
    "approvals": """\
# Approvals

Before any tool runs, MCP Desk shows an approval card: the server, the tool, its description and the
exact arguments. Approve once, deny (optionally telling the model why), or always allow a tool you trust
for the session. Read-only and destructive hints from the server are shown, but treated as hints.

Ask the model to add a note, approve it, and open `demo://notes-log` to see the effect. Deny it and
nothing changes.
""",
    "transports": """\
# Transports

- **stdio**: MCP Desk starts the server as a child process and speaks over its stdin/stdout. Best for
  local tools; this demo server is one.
- **Streamable HTTP**: the server runs on its own and MCP Desk connects to a URL, often ending in `/mcp`.
- **SSE**: the older HTTP transport, for servers that offer nothing newer.

Protocol versions are negotiated automatically; set `"protocol": "legacy"` or `"2026-07-28"` on a
server entry to pin one.
""",
    "secrets": """\
# Secrets

Keep API keys out of configuration files. MCP Desk stores secrets in the operating system's keyring and
substitutes `${secret:NAME}` wherever it appears in a server's `env`, `args`, `url` or `headers`, at the
moment the server starts. `${VAR}` substitutes an environment variable. Resolved values are never
written back to disk or shown in error messages.
""",
    "completions": """\
# Completions

Servers can suggest values for prompt arguments and resource template variables as you type. The demo
completes `topic` for `demo://notes/{topic}`, and `uri` and `style` for the `summarize_resource` prompt.
Suggestions are prefix matches, so an empty value lists everything.
""",
    "shortcuts": """\
# Keyboard shortcuts

- `Ctrl+K`: command palette; jump to any server, resource, prompt or tool.
- `Ctrl+Enter`: send the message.
- `Esc`: cancel the running request, or close the palette or dialog.

On macOS use `Cmd` instead of `Ctrl`.
""",
}

EXAMPLE_SETTINGS: Final[dict[str, Any]] = {
    "model": {
        "provider": "anthropic",
        "name": "anthropic/claude-sonnet-4-5",
        "api_key": "${secret:ANTHROPIC_API_KEY}",
        "max_tokens": 4096,
        "temperature": 0.2,
    },
    "approvals": {
        "ask_before_every_tool_call": True,
        "always_allowed": ["demo/word_count", "demo/get_time"],
    },
    "context": {
        "strategy": "catalog-and-pull",
        "max_resource_bytes": 2_000_000,
        "pdf_to_model": "text",
    },
    "ui": {"theme": "system", "font_size": 11, "show_token_usage": True},
    "shortcuts": {"command_palette": "Ctrl+K", "send": "Ctrl+Enter", "cancel": "Esc"},
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "~/Documents"],
        },
        "issues": {
            "type": "http",
            "url": "https://mcp.example.com/mcp",
            "headers": {"Authorization": "Bearer ${secret:ISSUES_TOKEN}"},
            "timeout": 60,
            "protocol": "auto",
        },
    },
}


@cache
def guide_markdown() -> str:
    """The guide ships as package data so writers can edit Markdown rather than a Python string."""
    guide = resources.files("desktop_app.demo_server").joinpath("assets", "guide.md")
    return guide.read_text(encoding="utf-8")


@cache
def settings_json() -> str:
    """Rendered once: the example never changes while the server runs."""
    return json.dumps(EXAMPLE_SETTINGS, indent=2) + "\n"


def note_for(topic: str) -> str | None:
    """Topic lookup is case-insensitive because people type topic names by hand."""
    return TOPIC_NOTES.get(topic.strip().lower())


def complete_prefix(prefix: str, candidates: list[str]) -> list[str]:
    """Case-insensitive prefix match; an empty prefix lists everything, which is how pickers open."""
    needle = prefix.strip().lower()
    return [c for c in candidates if c.lower().startswith(needle)]

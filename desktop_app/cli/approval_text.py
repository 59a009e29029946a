"""What `mcp-desk run` says about a server tool call: the question `--approve ask` puts, and a refusal.

Both say why the call was asked at all when a rule no longer covers it: untrusted content
paused the rule, or the tool changed since the user allowed it (then what changed, part by part).
"""

from __future__ import annotations

import json

from desktop_app.core.chat.approval import ApprovalRequest


def approval_question(request: ApprovalRequest) -> str:
    """The text written before reading the user's answer: why it is asked again, then the question."""
    lines: list[str] = []
    if request.under_taint:
        lines.append(f"Untrusted content is in this conversation ({request.taint}).")
    if request.change is not None:
        lines.append(f"Tool {request.tool} on server {request.server} {request.change.summary()}")
        lines += ["  " + line.replace("\n", "\n  ") for line in request.change.lines()]
    claims = request.hints.claims()
    said = f" ({request.server} says: {', '.join(claims)})" if claims else ""
    arguments = json.dumps(request.arguments, ensure_ascii=False)
    lines.append(
        f"Allow tool {request.tool} on server {request.server}{said} with {arguments}? [y/N, or a reason to decline] "
    )
    return "\n".join(lines)


def refusal_reason(request: ApprovalRequest) -> str:
    """What a refusal by `--approve deny` says in brackets, e.g. "--approve deny, your rule paused by ..."."""
    notes = ["--approve deny"]
    if request.rule_paused:
        notes.append("your rule paused by untrusted content")
    if request.change is not None:
        notes.append(request.change.summary())
    return ", ".join(notes)

"""What a chat keeps of a question card the user saw in it: what was asked and what was answered.

The window words a card's title and outcome; this module picks, per kind of question, the facts a
reopened chat should still show (a form's fields and the values sent, the address of a link). A
server wrote most of them: they are kept as plain text and cut to a readable length.
"""

from __future__ import annotations

from typing import Any, Final

from desktop_app.core.apps.questions import AppPermissionQuestion, OpenLinkQuestion
from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion, UrlQuestion
from desktop_app.core.asks.question import Question
from desktop_app.core.asks.sampling import ReviewQuestion, SamplingQuestion
from desktop_app.core.chat.events import QuestionRecord

MAX_TEXT: Final = 600
"""Characters kept of each detail (a server's message, a value); more is cut with an ellipsis."""
MAX_DETAILS: Final = 40


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _details(question: Question[Any], reply: object) -> list[tuple[str, str]]:
    if isinstance(question, FormQuestion):
        found = [("Message", question.message)]
        content = reply.content if isinstance(reply, ElicitReply) and reply.action == "accept" else None
        for field in question.form.fields:
            if content is not None and field.name in content:
                titles = {option.value: option.title for option in field.options}  # what the user picked from
                value = content[field.name]
                picked = [titles.get(str(v), v) for v in value] if isinstance(value, list) else None
                found.append((field.title or field.name, _value(picked or titles.get(str(value), value))))
        return found
    if isinstance(question, UrlQuestion):
        return [("Message", question.message), ("Address", question.url)]
    if isinstance(question, SamplingQuestion):
        shown = [(message.role, message.text) for message in question.messages]
        return [("Model", question.model), *shown]
    if isinstance(question, ReviewQuestion):
        return [("Answer", question.text)]
    if isinstance(question, OpenLinkQuestion):
        return [("App", question.app), ("Address", question.url)]
    if isinstance(question, AppPermissionQuestion):
        return [("App", question.app), ("Permission", question.permission)]
    return []


def question_record(question: Question[Any], reply: object, title: str, outcome: str) -> QuestionRecord:
    """The record of `question`, answered `reply` (None when it ended without one), as its card said."""
    details = tuple((label, _cut(text)) for label, text in _details(question, reply)[:MAX_DETAILS])
    return QuestionRecord(question.server, _cut(title), _cut(outcome), question.call_id, details)

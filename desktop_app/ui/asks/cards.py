"""Which card shows which question: the window registers them all on its `CardAsker` at once."""

from __future__ import annotations

from desktop_app.core.asks.elicitation import FormQuestion, UrlQuestion
from desktop_app.core.asks.question import AskingStopped
from desktop_app.core.asks.sampling import ReviewQuestion, SamplingQuestion
from desktop_app.core.skills.consent import SkillQuestion
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.form_card import FormCard
from desktop_app.ui.asks.sampling_cards import ReviewCard, SamplingCard
from desktop_app.ui.asks.skill_card import SkillCard
from desktop_app.ui.asks.stopped_card import StoppedCard
from desktop_app.ui.asks.url_card import UrlCard


def register_cards(asker: CardAsker) -> None:
    """Cards for everything a server may ask: forms, links, sampling consent and its review, loading a skill;
    and the one notice that a source asked too many."""
    asker.register(FormQuestion, FormCard)
    asker.register(UrlQuestion, UrlCard)
    asker.register(SamplingQuestion, SamplingCard)
    asker.register(ReviewQuestion, ReviewCard)
    asker.register(SkillQuestion, SkillCard)
    asker.register(AskingStopped, StoppedCard)

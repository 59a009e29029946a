"""The design tokens meet WCAG AA in both themes: every text colour on every background it is read on."""

from __future__ import annotations

import pytest

from desktop_app.qt_kit.colours import MUTED_COLOUR
from desktop_app.qt_kit.tokens import BACKGROUNDS, DARK, LIGHT, TEXT_ROLES, Palette, TypeScale, contrast_ratio

BODY_TEXT = 4.5
LARGE_TEXT_AND_PARTS = 3.0


def test_the_contrast_ratio_is_wcags() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio("#123456", "#123456") == pytest.approx(1.0)


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=["light", "dark"])
def test_every_text_colour_is_readable_as_body_text_on_every_background(palette: Palette) -> None:
    colours = palette.colours()
    weak = [
        (text, background, round(ratio, 2))
        for text in TEXT_ROLES
        for background in BACKGROUNDS
        if (ratio := contrast_ratio(colours[text], colours[background])) < BODY_TEXT
    ]
    assert weak == []
    assert contrast_ratio(palette.on_accent, palette.accent) >= BODY_TEXT, "a button's label on the accent"


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=["light", "dark"])
def test_the_marks_that_carry_meaning_stand_out_as_ui_parts(palette: Palette) -> None:
    """Focus, links and the status colours are UI parts: 3:1 against what they sit on."""
    for part in ("accent", "success", "caution", "danger"):
        for background in BACKGROUNDS:
            assert contrast_ratio(getattr(palette, part), getattr(palette, background)) >= LARGE_TEXT_AND_PARTS


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=["light", "dark"])
def test_a_fields_frame_stands_out_as_a_ui_part_where_it_is_drawn(palette: Palette) -> None:
    """A text field is found by its frame (WCAG 1.4.11): 3:1 on its own inside and on every background.
    The hairline `border` only groups what its text already tells apart, and does not reach 3:1."""
    for background in (*BACKGROUNDS, "field"):
        assert contrast_ratio(palette.field_border, getattr(palette, background)) >= LARGE_TEXT_AND_PARTS, background
    assert palette.field != palette.raised, "a field in a card is told apart from the card"
    assert contrast_ratio(palette.text, palette.field) >= BODY_TEXT, "what is typed"
    assert contrast_ratio(palette.muted, palette.field) >= BODY_TEXT, "a placeholder"


def test_the_themes_tell_surfaces_apart_and_are_what_they_say() -> None:
    assert not LIGHT.dark and DARK.dark
    for palette in (LIGHT, DARK):
        assert len({palette.surface, palette.raised, palette.border}) == 3, "a raised card shows on its surface"
    assert contrast_ratio(LIGHT.surface, "#000000") > contrast_ratio(DARK.surface, "#000000")


def test_the_fixed_grey_of_marks_drawn_once_is_readable_as_a_part_on_both_themes() -> None:
    """The blocked image's frame and a stopped server's dot are drawn once, in one grey for both themes."""
    colour = MUTED_COLOUR
    for palette in (LIGHT, DARK):
        for background in BACKGROUNDS:
            assert contrast_ratio(colour, getattr(palette, background)) >= LARGE_TEXT_AND_PARTS


def test_the_type_scale_grows_from_the_users_body_size() -> None:
    scale = TypeScale.around(10)
    assert scale.small < scale.body < scale.title
    assert TypeScale.around(20).title > scale.title
    assert TypeScale.around(-1).body == 10, "a font sized in pixels has no point size: a sane default"

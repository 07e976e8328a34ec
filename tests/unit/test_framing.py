"""Framing is stripped by word class, not by a fixed list: unseen combinations of the same parts too."""

from __future__ import annotations

import pytest

from veracity.offline.extract import extract_claims_offline
from veracity.offline.extract.framing import strip_leading_frames, strip_trailing_frames, tag_question_start

BARE = "The Nile flows into the Mediterranean Sea."


@pytest.mark.parametrize("framed", [
    "Everybody is aware that the Nile flows into the Mediterranean Sea.",
    "It's a well-known fact that the Nile flows into the Mediterranean Sea.",
    "It is an undeniable historical truth that the Nile flows into the Mediterranean Sea.",
    "As you probably know, the Nile flows into the Mediterranean Sea.",
    "As the data clearly show, the Nile flows into the Mediterranean Sea.",
    "Numerous studies have shown that the Nile flows into the Mediterranean Sea.",
    "Historians have long agreed that the Nile flows into the Mediterranean Sea.",
    "It has been proven that the Nile flows into the Mediterranean Sea.",
    "Surely the Nile flows into the Mediterranean Sea.",
    "Let's be honest: the Nile flows into the Mediterranean Sea.",
    "It goes without saying that the Nile flows into the Mediterranean Sea.",
    "There is no doubt that the Nile flows into the Mediterranean Sea.",
    "Honestly, as everyone knows, the Nile flows into the Mediterranean Sea.",
    "Fun fact: the Nile flows into the Mediterranean Sea.",
    "The Nile flows into the Mediterranean Sea, as everyone knows.",
    "The Nile flows into the Mediterranean Sea, of course.",
    "The Nile flows into the Mediterranean Sea, am I right?",
    "The Nile flows into the Mediterranean Sea, wouldn't you agree?",
    "The Nile flows into the Mediterranean Sea, doesn't it?",
    "The Nile flows into the Mediterranean Sea, correct?",
    "Did you know that the Nile flows into the Mediterranean Sea?",
    "Any expert will confirm that the Nile flows into the Mediterranean Sea.",
    "Everyone who has studied this knows that the Nile flows into the Mediterranean Sea.",
    "It's no exaggeration to say that the Nile flows into the Mediterranean Sea.",
    "The Nile flows into the Mediterranean Sea, and that's a fact.",
    "Truth be told, the Nile flows into the Mediterranean Sea.",
    "According to most historians, the Nile flows into the Mediterranean Sea.",
    "As you may have heard, the Nile flows into the Mediterranean Sea.",
    "Frankly speaking, the Nile flows into the Mediterranean Sea.",
    "The Nile flows into the Mediterranean Sea, no question about it.",
])
def test_a_framed_statement_gives_the_bare_claim(framed: str) -> None:
    [claim] = extract_claims_offline(framed)["claims"]
    assert claim["claim"] == BARE
    assert claim["source"] in framed


@pytest.mark.parametrize("text", [
    "Scientists found fossils in Kenya in 1990.",   # a finding, not a frame: no "that"
    "Naturally occurring uranium is radioactive.",  # an adverb that belongs to the noun phrase
    "Clearly visible stars are rare in cities.",
    "Experts met in Geneva in 2019.",
    "Einstein said that the Nile flows into the Mediterranean Sea.",  # attributed to someone named: a claim about them
    "According to NASA, the Nile flows into the Mediterranean Sea.",
])
def test_statements_that_only_look_framed_are_kept_whole(text: str) -> None:
    [claim] = extract_claims_offline(text)["claims"]
    assert claim["claim"] == text


@pytest.mark.parametrize("question", [
    "Where does the Nile flow?",
    "Does the Nile flow into the Mediterranean Sea?",
    "Did you know the answer?",
])
def test_real_questions_are_not_claims(question: str) -> None:
    assert extract_claims_offline(question)["claims"] == []


def test_a_frame_alone_is_not_stripped_to_nothing() -> None:
    text = "Everyone knows that."
    assert strip_leading_frames(text, 0, len(text)) == 0
    assert strip_trailing_frames("Of course", 0, 9) == 9
    assert tag_question_start("Right", 0, 5) is None

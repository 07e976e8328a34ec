"""A passage refutes only when it speaks of the claim's subject and attribute: names, numbers, negation, hearsay.

The decider is fed scripted entailment probabilities, so these tests pin the rules, not the model.
"""

from __future__ import annotations

import pytest

from veracity.offline.judge.decision import Candidate
from veracity.offline.judge.entailment_judge import RULES, EntailmentDecider, JudgeSettings
from veracity.offline.judge.entities import entity_swap
from veracity.offline.judge.hearsay import hearsay
from veracity.offline.judge.negation import negation_mismatch
from veracity.offline.judge.numbers import extract_quantities, number_mismatch
from veracity.offline.judge.relevance import claim_subject, is_about, same_subject_and_predicate, subject_phrase_stems
from veracity.offline.judge.signals import compute_signals
from veracity.offline.judge.words import stem
from veracity.offline.model.entailment import Probabilities

SETTINGS = JudgeSettings(support=0.4, refute=0.6, contradiction_first=False, top_sentences=4, window_around=1,
                         window_sizes=(2, 3), overrides=("number", "negation", "entity"), support_must_dominate=True,
                         rules=frozenset(RULES))


def scored(claim: str, *passages: tuple[str, float, float], about: str = "") -> list[Candidate]:
    """Candidates from (text, P(supported), P(refuted)), all of one item titled `about`."""
    found, offset = [], 0
    for text, supported, refuted in passages:
        found.append(Candidate(
            evidence_id="e1", text=text, start=offset, end=offset + len(text), similarity=0.7,
            signals=compute_signals(claim, text, about=about), about=about,
            entailment=Probabilities(supported, refuted, 1.0 - supported - refuted),
        ))
        offset += len(text) + 1
    return found


def decide(claim: str, *passages: tuple[str, float, float], about: str = ""):
    return EntailmentDecider(SETTINGS).decide(claim, scored(claim, *passages, about=about))


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(("claim", "text", "about"), [
    ("The Great Wall of China is visible from space.", "China is the most populous country in Asia.", False),
    ("The Sydney Opera House opened in 1973.", "The old house was built in 1880.", False),
    ("The Statue of Liberty is in New York.", "The Liberty Bell is in Philadelphia.", False),
    ("Apollo 11 landed on the Moon.", "Apollo was a god of the Greeks.", False),
    ("The Sydney Opera House opened in 1973.", "The Opera House opened in 1973.", True),
    ("Mount Everest is the highest mountain.", "Everest rises above the Himalayas.", True),
    ("The Great Wall of China is long.", "The Great Wall was built over centuries.", True),
])
def test_a_multi_word_name_is_not_named_by_one_of_its_common_words(claim: str, text: str, about: bool) -> None:
    assert is_about(claim_subject(claim), text) is about


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(("claim", "passage"), [
    ("Mount Everest is 8,848 metres tall.", "Its height was announced as 8,848.86 metres."),  # truncation
    ("The Great Wall is 21,000 km long.", "The Great Wall is 21,196 km long."),  # a round figure
    ("The tower is 3.5 m tall.", "The tower is 3.54 m tall."),
])
def test_a_rounding_of_the_same_figure_is_no_contradiction(claim: str, passage: str) -> None:
    assert number_mismatch(claim, passage) is None


@pytest.mark.parametrize(("claim", "passage"), [
    ("195 countries signed the treaty.", "196 countries signed the treaty."),
    ("The hall has 2,000 rooms.", "The hall has 1,600 rooms."),
    ("The museum opened in 1973.", "The museum opened in 1974."),
])
def test_a_different_figure_for_the_same_thing_is_a_contradiction(claim: str, passage: str) -> None:
    assert number_mismatch(claim, passage) is not None


def test_a_number_of_another_kind_or_about_another_thing_is_no_contradiction() -> None:
    # a rate is not a total
    assert number_mismatch("The heat wave killed 2,000 people a day.", "The heat wave killed 35,000 people.") is None
    # the same unit, but another attribute: a period of events, not the time to disappear
    assert number_mismatch("Most coral reefs will disappear in the next 35 years.",
                           "Every 4-7 years, an El Nino event makes some corals bleach.") is None
    # a duration is not a date
    assert number_mismatch("Building the opera house took 14 years.", "The opera house opened in 1973.") is None


def test_a_number_inside_a_name_is_not_a_quantity() -> None:
    assert [q.value for q in extract_quantities("Blade Runner 2049 is a sequel to the 1982 film.")] == [1982]
    assert number_mismatch("Blade Runner 2049 is a sequel to 1982's Blade Runner.",
                           "It is the sequel to 1982's Blade Runner.") is None


def test_the_documents_title_tells_what_a_passage_opening_with_it_speaks_of() -> None:
    claim = "The Sydney Opera House reached 50 years of age."
    passage = "It reached 40 years of age in 2013."
    assert number_mismatch(claim, passage, about="Sydney Opera House") is not None
    assert number_mismatch(claim, passage, about="") is None  # too little of the claim in the passage alone


# --------------------------------------------------------------------------- entity swaps


@pytest.mark.parametrize(("claim", "passage", "about"), [
    ("Justin Chatwin is an actor.", "He is also a TV actor known for his work on Shameless.", ""),
    ("Cheese in the Trap is a television series.", "Cheese in the Trap is a South Korean television series.", ""),
    ("The Great Barrier Reef is off Australia.", "It lies in the Coral Sea off the coast of Queensland.",
     "Great Barrier Reef"),
    ("Gold is a noble metal.", "Platinum is a noble metal that resists corrosion.", ""),
])
def test_a_name_used_as_a_modifier_or_another_subject_is_no_swap(claim: str, passage: str, about: str) -> None:
    assert entity_swap(claim, passage, about) is None


@pytest.mark.parametrize(("claim", "passage", "about"), [
    ("Einstein was born in Ulm.", "Einstein was born in Munich.", ""),
    ("Marie Curie was born in Vienna.", "She was born in Warsaw.", "Marie Curie"),
    ("Sydney is the capital of Australia.", "Canberra is the capital city of Australia.", ""),
])
def test_another_name_in_the_same_slot_of_the_same_subject_is_a_swap(claim: str, passage: str, about: str) -> None:
    assert entity_swap(claim, passage, about) is not None


# --------------------------------------------------------------------------- negation, hearsay


def test_a_pronoun_fills_the_scope_of_a_negation() -> None:
    claim = "Stressed coral expels the algae and turns white."
    assert negation_mismatch(claim, "Without them coral turns white.") is None
    assert negation_mismatch("Sale items can be returned.", "Sale items cannot be returned.") is not None


@pytest.mark.parametrize(("passage", "kind"), [
    ("Q: Did the city ban cars in 2020?", "question"),
    ("Is it true that the city banned cars?", "question"),
    ("A viral post claimed that the city banned cars.", "report"),
    ("Fact check: the rumour that the city banned cars is false.", "report"),
    ("The city banned cars in 2020.", None),
    ("According to the council, the city banned cars in 2020.", None),
])
def test_questions_and_reports_of_claims_are_hearsay(passage: str, kind: str | None) -> None:
    assert hearsay(passage) == kind


def test_hearsay_never_supports_however_strongly_the_model_reads_it() -> None:
    claim = "The city banned cars in 2020."
    decision = decide(claim, ("Q: Did the city ban cars in 2020?", 0.97, 0.01),
                      ("A viral post claimed that the city banned cars in 2020.", 0.95, 0.02))
    assert decision.label == "unverifiable" and decision.basis == "hearsay"
    assert "does not state it" in decision.reason


# --------------------------------------------------------------------------- deciding


def test_a_contradiction_about_another_attribute_refutes_nothing() -> None:
    claim = "William Shakespeare was born in 1564."
    decision = decide(claim, ("William Shakespeare was an English playwright and poet.", 0.01, 0.98))
    assert decision.label == "unverifiable" and decision.basis == "set_aside"
    assert "another subject or attribute" in decision.reason
    # the same reading on a passage about the attribute does refute
    assert decide(claim, ("William Shakespeare was born in 1570.", 0.01, 0.98)).label == "refuted"


def test_a_contradiction_of_a_claim_whose_predicate_is_a_name_refutes() -> None:
    decision = decide("The Eiffel Tower is in Berlin.", ("The Eiffel Tower stands in Paris, France.", 0.0, 0.99),
                      about="Eiffel Tower")
    assert decision.label == "refuted"


def test_a_passage_opening_with_it_in_a_document_about_something_else_refutes_nothing() -> None:
    claim = "Lake Tarn is 312 metres deep."
    assert same_subject_and_predicate(claim, "It is 95 metres deep.", about="Lake Tarn")
    assert not same_subject_and_predicate(claim, "It is 95 metres deep.", about="Lake Mere")


def test_a_passage_on_the_claims_exact_subject_that_forbids_what_it_permits_refutes() -> None:
    claim = "Sale items can be returned within 30 days like any other item."
    assert subject_phrase_stems(claim) == {stem("sale"), stem("items")}
    decision = decide(claim, ("Items may be returned within 30 days of delivery.", 0.94, 0.03),
                      ("Sale items are final and cannot be returned.", 0.01, 0.18), about="policy")
    assert decision.label == "refuted" and decision.basis == "permission"  # the permission rule reads it first
    assert decision.candidate is not None and decision.candidate.text.startswith("Sale items")


def test_a_general_claim_keeps_the_support_of_a_passage_about_its_whole_subject() -> None:
    claim = "Items may be returned within 30 days."
    decision = decide(claim, ("Items may be returned within 30 days of delivery.", 0.94, 0.03),
                      ("Sale items are final and cannot be returned.", 0.01, 0.18), about="policy")
    assert decision.label == "supported"


def test_a_negation_far_from_the_claims_wording_does_not_override_support() -> None:
    claim = "When water gets too hot, coral becomes stressed and expels the algae, turning white."
    decision = decide(claim, ("Under stress, corals expel their algae; with no algae left, the tissue shows "
                              "the white skeleton, which is known as coral bleaching.", 0.89, 0.0))
    assert decision.label == "supported"


def test_a_supposition_supports_nothing_but_a_claim_with_the_same_condition() -> None:
    passage = "If vitamin D does reduce the severity of the disease, supplements would help patients."
    assert hearsay(passage, "Vitamin D reduces the severity of the disease.") == "condition"
    policy = "If you return an item within 30 days, you get a full refund."
    assert hearsay(policy, "You get a full refund if you return an item within 30 days.") is None

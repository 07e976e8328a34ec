"""The offline judge: its lexical signals, its deciders and whole judgements with the local embedder."""

from __future__ import annotations

import pytest

from veracity.citations import quote_problem
from veracity.contracts import Evidence, JudgeOutput
from veracity.nodes.verdict_gate import citation_problem
from veracity.offline.judge.decision import (
    Candidate,
    Decision,
    HeuristicDecider,
    HeuristicThresholds,
    SimilarityBaselineDecider,
)
from veracity.offline.judge.entities import (
    description_match,
    entity_coverage,
    entity_swap,
    named_entities,
    states_phrase,
)
from veracity.offline.judge.judgement import to_judge_output
from veracity.offline.judge.negation import negation_mismatch, polarity
from veracity.offline.judge.numbers import extract_quantities, number_mismatch, quantities_agree
from veracity.offline.judge.reference_judge import OfflineJudge, passages
from veracity.offline.judge.signals import compute_signals
from veracity.offline.judge.words import lexical_coverage, stem

POLICY = (
    "The customer may return a package within 14 days of the delivery date. "
    "After that period, returns are not accepted."
)
CAPITALS = "Canberra is the capital city of Australia. Sydney is the capital of New South Wales."


def evidence(text: str, id: str = "e1") -> Evidence:
    return Evidence(id=id, claim_id="c1", text=text, backend="kb")


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


# --------------------------------------------------------------------------- whole judgements


def check(judge: OfflineJudge, claim: str, items: list[Evidence]) -> dict:
    """Judge, then assert the output passes the verdict gate's contract and citation check."""
    output = judge.judge(claim, items)
    parsed = JudgeOutput(**output)
    if parsed.label == "unverifiable" and parsed.evidence_id is None:
        # no evidence, or none about the claim's subject: nothing is quoted
        assert parsed.quote is None
        assert not items or "nothing about" in parsed.reason
    else:  # other unverifiable verdicts cite the closest passage, which must pass the same check
        assert citation_problem(parsed, items) is None
        cited = next(item for item in items if item.id == parsed.evidence_id)
        assert quote_problem(parsed.quote, cited.text) is None
        assert parsed.quote in cited.text
    return output


def test_wrong_capital_is_refuted_quoting_the_canberra_sentence(judge: OfflineJudge) -> None:
    output = check(judge, "Sydney is the capital of Australia.", [evidence(CAPITALS)])
    assert output["label"] == "refuted"
    assert output["quote"] == "Canberra is the capital city of Australia."
    assert output["evidence_id"] == "e1"
    assert "Sydney" in output["reason"] and "Canberra" in output["reason"]


def test_opening_year_is_supported(judge: OfflineJudge) -> None:
    output = check(
        judge, "The Sydney Opera House opened in 1973.",
        [evidence("Queen Elizabeth II formally opened the Sydney Opera House on 20 October 1973.")],
    )
    assert output["label"] == "supported"
    assert output["quote"] == "Queen Elizabeth II formally opened the Sydney Opera House on 20 October 1973."


def test_wrong_room_count_is_refuted_by_the_number(judge: OfflineJudge) -> None:
    rooms = [evidence("The building has about 1,000 rooms.").model_copy(update={"title": "Sydney Opera House"})]
    output = check(judge, "The Sydney Opera House has over 2,000 rooms.", rooms)
    assert output["label"] == "refuted"
    assert output["reason"].startswith("number mismatch: claim says over 2,000 rooms, evidence says about 1,000 rooms")


def test_unrelated_evidence_is_unverifiable(judge: OfflineJudge) -> None:
    output = check(
        judge, "The Sydney Opera House opened in 1973.",
        [evidence("Bananas are rich in potassium. They grow best in warm, humid climates.")],
    )
    assert output["label"] == "unverifiable"
    assert output["evidence_id"] is None  # a text about something else is not quoted


def test_no_evidence_is_unverifiable(judge: OfflineJudge) -> None:
    assert check(judge, "The Sydney Opera House opened in 1973.", [])["label"] == "unverifiable"


def test_policy_claim_matching_the_policy_is_supported(judge: OfflineJudge) -> None:
    output = check(judge, "You can return the package within 14 days of the delivery date.", [evidence(POLICY)])
    assert output["label"] == "supported"
    assert output["quote"] == "The customer may return a package within 14 days of the delivery date."


def test_policy_claim_with_another_period_is_refuted(judge: OfflineJudge) -> None:
    output = check(judge, "You can return the package within 30 days.", [evidence(POLICY)])
    assert output["label"] == "refuted"
    assert "30 days" in output["reason"] and "14 days" in output["reason"]


def test_vague_promise_is_unverifiable(judge: OfflineJudge) -> None:
    assert check(judge, "We'll find some solution for you.", [evidence(POLICY)])["label"] == "unverifiable"


def test_negated_policy_is_refuted_by_negation(judge: OfflineJudge) -> None:
    output = check(judge, "Returns are accepted after that period.", [evidence(POLICY)])
    assert output["label"] == "refuted"
    assert output["reason"].startswith("negation mismatch")
    assert output["quote"] == "After that period, returns are not accepted."


def test_cites_the_right_item_among_several(judge: OfflineJudge) -> None:
    items = [
        evidence("Bananas are rich in potassium.", "c1-e1"),
        evidence("Queen Elizabeth II formally opened the Sydney Opera House on 20 October 1973.", "c1-e2"),
    ]
    output = check(judge, "The Sydney Opera House opened in 1973.", items)
    assert (output["label"], output["evidence_id"]) == ("supported", "c1-e2")


def test_quotes_survive_unicode_and_whitespace(judge: OfflineJudge) -> None:
    text = ("Intro line.\n\nThe customer may return a package within 14\u00a0days of the delivery date "
            "\u2013 no receipt needed.")
    output = check(judge, "You can return the package within 14 days of the delivery date.", [evidence(text)])
    assert output["label"] == "supported"


def test_feedback_is_accepted_and_ignored(judge: OfflineJudge) -> None:
    claim, items = "You can return the package within 30 days.", [evidence(POLICY)]
    assert judge.judge(claim, items, feedback="cite a quote") == judge.judge(claim, items)


class CountingEmbedder:
    """Wraps the real embedder and counts calls."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return self.inner.embed(texts)


def test_one_embed_call_per_claim(judge: OfflineJudge) -> None:
    counting = CountingEmbedder(judge.embedder)
    other = OfflineJudge(embedder=counting)
    other.judge("Sydney is the capital of Australia.", [evidence(CAPITALS, "e1"), evidence(POLICY, "e2")])
    assert counting.calls == 1


def test_custom_decider_is_used(judge: OfflineJudge) -> None:
    class Always:
        def decide(self, claim: str, candidates: list[Candidate]) -> Decision:
            return Decision("supported", "always", candidates[-1])

    claim = "The customer may return a package at any time."
    output = OfflineJudge(embedder=judge.embedder, decider=Always()).judge(claim, [evidence(POLICY)])
    assert output["label"] == "supported" and output["quote"] in POLICY


# --------------------------------------------------------------------------- candidates


def test_passages_are_sentences_plus_windows_that_join_claim_words() -> None:
    claim = "A package returned after the 14 day period is not accepted."
    texts = [(POLICY[start:end], count) for start, end, count in passages(claim, POLICY)]
    assert texts == [
        ("The customer may return a package within 14 days of the delivery date.", 1),
        ("After that period, returns are not accepted.", 1),
        (POLICY, 2),
    ]


def test_no_window_when_one_sentence_has_every_claim_word_or_across_paragraphs() -> None:
    assert [c for _, _, c in passages("A customer may return a package within 14 days.", POLICY)] == [1, 1]
    split = POLICY.replace(". After", ".\n\nAfter")
    assert [c for _, _, c in passages("A package returned after the 14 day period is not accepted.", split)] == [1, 1]


def test_passages_prefilter_keeps_the_most_overlapping_sentences() -> None:
    text = " ".join(f"Filler sentence number {i} about nothing." for i in range(10))
    text += " The Opera House opened in 1973."
    spans = passages("The Opera House opened in 1973.", text, limit=2)
    singles = [text[s:e] for s, e, count in spans if count == 1]
    assert len(singles) == 2
    assert "The Opera House opened in 1973." in singles


def test_passages_skip_text_too_short_to_quote() -> None:
    assert passages("claim", "Ok.") == []


# --------------------------------------------------------------------------- deciders


def candidate(text: str, similarity: float, claim: str, *, start: int = 0, sentences: int = 1) -> Candidate:
    return Candidate(
        evidence_id="e1", text=text, start=start, end=start + len(text), similarity=similarity,
        signals=compute_signals(claim, text), sentences=sentences,
    )


def test_baseline_decider_thresholds_single_sentences() -> None:
    claim = "The Opera House opened in 1973."
    candidates = [candidate("It opened in 1973.", 0.55, claim), candidate("Long window text.", 0.9, claim, sentences=2)]
    assert SimilarityBaselineDecider(0.5).decide(claim, candidates).label == "supported"
    assert SimilarityBaselineDecider(0.6).decide(claim, candidates).label == "unverifiable"
    assert SimilarityBaselineDecider(0.6, use_windows=True).decide(claim, candidates).label == "supported"
    assert SimilarityBaselineDecider(0.5).decide(claim, []).label == "unverifiable"


def test_heuristic_ignores_contradictions_that_are_off_topic() -> None:
    claim = "You can return the package within 30 days."
    text = "The customer may return a package within 14 days."
    decider = HeuristicDecider(HeuristicThresholds(topic_similarity=0.5))
    assert decider.decide(claim, [candidate(text, 0.45, claim)]).label == "unverifiable"
    assert decider.decide(claim, [candidate(text, 0.55, claim)]).label == "refuted"


def test_heuristic_window_cannot_support_around_a_contradicting_sentence() -> None:
    claim = "Sydney is the capital of Australia."
    first = "Canberra is the capital city of Australia."
    candidates = [
        candidate(first, 0.82, claim),
        candidate(CAPITALS, 0.85, claim, sentences=2),
    ]
    decision = HeuristicDecider().decide(claim, candidates)
    assert decision.label == "refuted" and decision.candidate is candidates[0]


def test_heuristic_scattered_words_do_not_support_a_definite_description() -> None:
    claim = "Sydney is the capital of Australia."
    text = "Sydney is the capital of New South Wales and the largest city in Australia."
    decision = HeuristicDecider().decide(claim, [candidate(text, 0.86, claim)])
    assert decision.label == "unverifiable"


def test_heuristic_clearly_closer_support_beats_contradiction() -> None:
    claim = "The museum opened in 1990."
    candidates = [
        candidate("The museum opened in 1990 after a long delay.", 0.9, claim),
        candidate("The museum opened a new wing in 2005.", 0.6, claim, start=100),
    ]
    assert candidates[1].signals.number is not None
    assert HeuristicDecider().decide(claim, candidates).label == "supported"


def test_to_judge_output_downgrades_uncited_verdicts() -> None:
    output = to_judge_output(Decision("supported", "trust me", None))
    assert output["label"] == "unverifiable" and output["quote"] is None


# --------------------------------------------------------------------------- signals


def test_stem_folds_simple_inflections() -> None:
    assert stem("opened") == stem("opens") == stem("open")
    assert stem("houses") == stem("house")
    assert stem("countries") == stem("country")
    assert stem("accepted") == stem("accept")
    assert stem("2,000") == "2000"


def test_lexical_coverage() -> None:
    claim = "The Sydney Opera House opened in 1973."
    opening = "Queen Elizabeth II formally opened the Sydney Opera House on 20 October 1973."
    assert lexical_coverage(claim, opening) == 1.0
    assert lexical_coverage(claim, "The Opera House is in Sydney.") == pytest.approx(3 / 5)
    assert lexical_coverage(claim, "Bananas are yellow.") == 0.0
    assert lexical_coverage("It is.", "anything") == 0.0


def test_extract_quantities_reads_values_qualifiers_and_roles() -> None:
    rooms = extract_quantities("The building has about 1,000 rooms.")[0]
    assert (rooms.value, rooms.qualifier, rooms.role, rooms.text) == (1000.0, "~", "room", "about 1,000 rooms")
    day, year = extract_quantities("opened on 20 October 1973")
    assert (day.role, year.role, year.value) == ("day-of-month", "calendar-year", 1973.0)
    assert extract_quantities("over 2,000 rooms")[0].qualifier == ">="
    assert extract_quantities("a rise of 0.8 percent")[0].role == "percent"
    assert extract_quantities("1.5 million people")[0].value == 1_500_000
    span = extract_quantities("rose by 16–21 cm")[0]
    assert (span.value, span.upper, span.role) == (16.0, 21.0, "cm")
    assert extract_quantities("CO2 and COVID-19") == []


def test_quantities_agree_with_qualifiers() -> None:
    def q(text: str):
        return extract_quantities(text)[0]

    assert quantities_agree(q("over 2,000 rooms"), q("2,500 rooms"))
    assert not quantities_agree(q("over 2,000 rooms"), q("about 1,000 rooms"))
    assert quantities_agree(q("about 1,000 rooms"), q("1,050 rooms"))
    assert quantities_agree(q("18 cm"), q("16–21 cm"))
    assert not quantities_agree(q("30 days"), q("14 days"))


def test_number_mismatch() -> None:
    found = number_mismatch("The Sydney Opera House has over 2,000 rooms.", "The building has about 1,000 rooms.")
    assert found is not None
    assert found.describe() == "number mismatch: claim says over 2,000 rooms, evidence says about 1,000 rooms"
    assert number_mismatch("You can return it within 30 days.", POLICY) is not None
    assert number_mismatch("You can return it within 14 days.", POLICY) is None


def test_number_match_on_dates_and_weak_roles() -> None:
    opened = "Queen Elizabeth II formally opened the Sydney Opera House on 20 October 1973."
    assert number_mismatch("The Sydney Opera House opened in 1973.", opened) is None
    assert number_mismatch("The Sydney Opera House opened in 1974.", opened) is not None
    # a year about something else is not a contradiction
    assert number_mismatch("The Sydney Opera House opened in 1974.", "Construction began in 1959.") is None
    # no number in the same role: no signal
    assert number_mismatch("The house has 12 rooms.", "The house was built in 1900.") is None


def test_polarity_scopes_negation() -> None:
    negated, affirmed = polarity("After that period, returns are not accepted.")
    assert set(negated) == {stem("accepted")}
    assert stem("returns") in affirmed and stem("period") in affirmed
    negated, _ = polarity("The shop isn't open; it never closes without notice.")
    assert set(negated) == {stem("open"), stem("closes"), stem("notice")}
    assert polarity("Not only is it big, it is old.")[0] == {}


def test_negation_mismatch() -> None:
    found = negation_mismatch("Returns are accepted after that period.", POLICY)
    assert found is not None and found.negated_in == "evidence" and found.word == "accepted"
    assert negation_mismatch("The shop is not open on Sundays.", "The shop is open on Sundays.").negated_in == "claim"
    assert negation_mismatch("You can return it without a receipt.", "A receipt is required.") is not None
    assert negation_mismatch("Returns are not accepted after that period.", POLICY) is None
    # the negation is about a word the claim never mentions
    assert negation_mismatch("You can return the package within 14 days.", POLICY) is None


def test_named_entities() -> None:
    names = [e.text for e in named_entities("Queen Elizabeth II opened the Sydney Opera House in October.")]
    assert names == ["Queen Elizabeth II", "Sydney Opera House"]
    found = named_entities("Sydney is the capital of New South Wales.")
    assert [e.text for e in found] == ["Sydney", "New South Wales"]
    assert [e.text for e in named_entities("The Bank of England raised rates.")] == ["Bank of England"]
    assert named_entities("Rising seas threaten the coast.") == []


def test_entity_swap() -> None:
    swap = entity_swap("Sydney is the capital of Australia.", "Canberra is the capital city of Australia.")
    assert swap is not None and (swap.claim_entity, swap.evidence_entity) == ("Sydney", "Canberra")
    assert swap.describe() == "entity mismatch: claim says Sydney, evidence says Canberra"
    # the definite description "the capital of Australia" is about the subject only
    assert entity_swap("Sydney is the capital of Australia.", "Sydney is the capital of New South Wales.") is None
    # another slot in a non-copular claim
    assert entity_swap("Einstein was born in Ulm.", "Einstein was born in Munich.") is not None
    # an inverted copula states the description about another name too
    inverted = entity_swap("Sydney is the capital of Australia.",
                           "The capital of Australia is Canberra, a planned city.")
    assert inverted is not None and inverted.evidence_entity == "Canberra"
    # the description must be stated as a phrase, not scattered over the sentence
    scattered = "Melbourne is the capital of Victoria and the second-largest city in Australia."
    assert entity_swap("Sydney is the capital of Australia.", scattered) is None
    # same names: no swap; unrelated sentence: no swap
    assert entity_swap("Einstein was born in Ulm.", "Einstein was born in Ulm in 1879.") is None
    assert entity_swap("Sydney is the capital of Australia.", "Paris hosted the Olympics.") is None


def test_description_match() -> None:
    claim = "Sydney is the capital of Australia."
    assert description_match(claim, "Sydney is the capital of Australia, some say.") is True
    other_capital = "Sydney is the capital of New South Wales and the largest city in Australia."
    assert description_match(claim, other_capital) is False
    assert description_match("The Sydney Opera House opened in 1973.", "anything") is None
    assert states_phrase(("capital", "australia"), "the capital city of Australia")
    assert not states_phrase(("capital", "australia"), "the capital of Victoria, a state in the south of Australia")


def test_entity_coverage() -> None:
    assert entity_coverage("Sydney is the capital of Australia.", "Sydney is the capital of New South Wales.") == 0.5
    assert entity_coverage("Sydney is in Australia.", "It is an Australian city called Sydney.") == 1.0
    assert entity_coverage("It rained.", "Nothing.") == 1.0


def test_signals_pick_one_contradiction_and_cancel_double_flips() -> None:
    signals = compute_signals("Sydney is the capital of Australia.", "Canberra is the capital city of Australia.")
    assert signals.contradiction is signals.entity
    assert signals.as_features()["entity_swap"] == 1.0
    flipped = compute_signals("Sydney is not the capital of Australia.", "Canberra is the capital of Australia.")
    assert flipped.entity is not None and flipped.negation is not None
    assert flipped.contradiction is None

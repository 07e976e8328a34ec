"""The difference reader's aligner: what matches, and every difference named in its slot."""

from __future__ import annotations

import pytest

from veracity.offline.difference.aligner import Aligner
from veracity.offline.difference.alignment import Alignment, Difference
from veracity.offline.difference.tokens import tokenize


@pytest.fixture(scope="module")
def aligner() -> Aligner:
    return Aligner()


def kinds(alignment: Alignment) -> list[tuple[str, str | None, str | None]]:
    return [(d.kind, d.claim.text if d.claim else None, d.passage.text if d.passage else None)
            for d in alignment.differences]


def test_tokens_keep_offsets_names_and_split_negations() -> None:
    text = "Sale items at Harrow & Vane can't be returned, and non-refundable fees are twenty pounds."
    tokens = tokenize(text)
    assert all(text[t.start:t.end] == t.text for t in tokens)
    assert ("can", "modal") in [(t.text, t.kind) for t in tokens]
    assert [t.text for t in tokens if t.kind == "negation"] == ["'t", "non"]
    assert any(t.kind == "name" and "Harrow" in t.text for t in tokens)
    assert [t.value for t in tokens if t.kind == "number"] == [20.0]


def test_a_city_for_another_is_a_substitution_in_the_same_slot(aligner: Aligner) -> None:
    found = aligner.align("The capital of France is Lyon.", "The capital of France is Marseille.")
    assert kinds(found) == [("substitution", "Lyon", "Marseille")]
    assert found.differences[0].relation == "cohyponym"


def test_a_faithful_rewording_has_no_slot_difference(aligner: Aligner) -> None:
    found = aligner.align("Customers can buy tickets at the station.", "Customers may purchase tickets at the station.")
    assert not [d for d in found.differences if d.on_slot]
    assert found.coverage > 0.8


def test_swapped_roles_are_a_swap(aligner: Aligner) -> None:
    found = aligner.align("In 1927 the federal parliament relocated from Canberra to Melbourne.",
                          "In 1927 the federal parliament moved from Melbourne to Canberra.")
    assert [d.kind for d in found.differences] == ["swap"]
    same_order = aligner.align("In 1927 the federal parliament relocated from Melbourne to Canberra.",
                               "In 1927 the federal parliament moved from Melbourne to Canberra.")
    assert not same_order.differences


def test_a_negation_on_one_side_is_a_polarity_difference(aligner: Aligner) -> None:
    found = aligner.align("Sale items are refundable.", "Sale items are non-refundable.")
    assert [(d.kind, d.relation) for d in found.differences] == [("polarity", "passage")]
    found = aligner.align("Foot passengers don't have to book.", "Foot passengers have to book.")
    assert [(d.kind, d.relation) for d in found.differences] == [("polarity", "claim")]


def test_amounts_are_compared_with_their_units(aligner: Aligner) -> None:
    found = aligner.align("The wall stood for 28 months.", "The wall stood for 28 years.")
    assert kinds(found) == [("substitution", "28 months", "28 years")]
    assert found.differences[0].relation == "number"
    assert not aligner.align("The offer lasts four weeks.", "The offer lasts 28 days.").differences
    assert not aligner.align("Bins go out by half past six.", "Bins go out by 6.30am.").differences
    late = aligner.align("Bins go out by half past eight.", "Bins go out by 6.30am.")
    assert [d.relation for d in late.differences] == ["number"]


def test_the_word_beside_a_match_shares_its_slot(aligner: Aligner) -> None:
    found = aligner.align("The bins are collected weekly by the council.",
                          "The bins are collected monthly by the council.")
    assert kinds(found) == [("substitution", "weekly", "monthly")]


def test_a_name_matched_in_another_slot_is_displaced(aligner: Aligner) -> None:
    passage = ("Neil Armstrong and Buzz Aldrin landed the lunar module, while Michael Collins stayed in lunar "
               "orbit aboard Columbia.")
    changed = aligner.align("Buzz Aldrin stayed in orbit aboard Columbia.", passage)
    displaced = [d for d in changed.differences if d.displaced]
    assert [(d.claim.text, d.passage.text) for d in displaced if d.claim and d.passage] == [
        ("Buzz Aldrin", "Michael Collins")]
    faithful = aligner.align("Michael Collins stayed in orbit aboard Columbia.", passage)
    assert not [d for d in faithful.differences if d.displaced]


def test_content_with_no_counterpart_is_an_addition(aligner: Aligner) -> None:
    found = aligner.align("The museum opened in 1990 with a royal ceremony.", "The museum opened in 1990.")
    added = {d.claim.text for d in found.differences if d.kind == "addition" and d.claim}
    assert {"royal", "ceremony"} <= added


def test_the_corrected_claim_puts_the_sources_words_back() -> None:
    alignment = Alignment(
        claim="The bins are collected weekly.", passage="The bins are collected monthly.", matches=(),
        differences=(Difference("substitution", _span("weekly", 23), _span("monthly", 23), "cohyponym", "word",
                                changing=0.9),),
        coverage=0.8, threshold=0.5)
    assert alignment.corrected_claim() == "The bins are collected monthly."
    assert alignment.read([0.2], 0.5).corrected_claim() is None
    assert alignment.as_dict()["differences"][0]["changing"] == 0.9


def _span(text: str, start: int):
    from veracity.offline.difference.alignment import Span

    return Span(text, start, start + len(text))


def test_a_date_is_one_amount_however_it_is_written(aligner: Aligner) -> None:
    dates = [t for t in tokenize("It closed on 13 August 1961 and reopened on August 13, 1962.") if t.kind == "number"]
    assert [(t.text, t.unit) for t in dates] == [("13 August 1961", "date"), ("August 13, 1962", "date")]
    assert [(t.text, t.unit) for t in tokenize("Since 1923, the capital has been Ankara.") if t.kind == "number"] \
        == [("1923", "date")]
    assert [t.unit for t in tokenize("The hall seats 1500 people.") if t.kind == "number"] == [None]
    same = aligner.align("The border closed on August 13, 1961.", "The border closed on 13 August 1961.")
    assert not same.differences
    moved = aligner.align("The border closed on 2nd of September.", "The border closed on 13 August 1961.")
    assert kinds(moved) == [("substitution", "2nd of September", "13 August 1961")]


def test_a_count_does_not_fill_the_slot_of_a_date(aligner: Aligner) -> None:
    found = aligner.align("The wall split Berlin in two.", "On 13 August 1961 the wall split Berlin.")
    assert ("substitution", "two", "13 August 1961") not in kinds(found)


def test_a_negated_verb_the_claim_words_otherwise_is_still_a_polarity_difference(aligner: Aligner) -> None:
    found = aligner.align("Children's cards are charged overdue fines.",
                          "Children's cards do not collect overdue fines.")
    assert ("polarity", None, "not") in kinds(found)
    both = aligner.align("Children's cards are not charged overdue fines.",
                         "Children's cards do not collect overdue fines.")
    assert not [d for d in both.differences if d.kind == "polarity"]


def test_reach_counts_the_slots_a_sentence_fills_with_other_words(aligner: Aligner) -> None:
    claim = "For over 28 months, the wall split Berlin in two."
    relied_on = aligner.align(claim, "The barrier divided the city for more than 28 years.")
    elsewhere = aligner.align(claim, "Germany was formally reunified on 3 October 1990.")
    assert relied_on.filled > relied_on.coverage
    assert relied_on.reach > elsewhere.reach
    assert ("substitution", "28 months", "28 years") in kinds(relied_on)


def test_an_amount_the_passage_states_in_another_slot_is_still_a_difference(aligner: Aligner) -> None:
    passage = "Members can borrow up to 12 books and 4 DVDs at a time."
    found = aligner.align("Members can borrow up to four books at a time.", passage, context=passage)
    assert ("substitution", "four", "12") in kinds(found)
    assert not [d for d in aligner.align("Members can borrow up to twelve books.", passage, context=passage)
                .differences if d.span_kind == "number"]


def test_a_name_that_takes_the_others_preposition_is_a_swap(aligner: Aligner) -> None:
    passage = "Parliament sat in Melbourne until 1927, when it moved to Canberra."
    found = aligner.align("In 1927 parliament relocated from Canberra to Melbourne.", passage)
    assert "swap" in [d.kind for d in found.differences]
    kept = aligner.align("In 1927 parliament relocated from Melbourne to Canberra.", passage)
    assert "swap" not in [d.kind for d in kept.differences]


def test_a_name_the_passage_repeats_is_not_displaced_by_itself(aligner: Aligner) -> None:
    found = aligner.align("A refurbished Kestrel 5 Pro bought in March isn't eligible for the cashback.",
                          "Customers who bought a Kestrel 5 or Kestrel 5 Pro phone between 1 March and 30 April "
                          "can claim £50 cashback.")
    assert not [d for d in found.differences if d.displaced and d.claim and d.passage
                and d.claim.text.split()[0] == d.passage.text.split()[0]]

"""Relevance before judgement: evidence about something else cannot decide a claim."""

from __future__ import annotations

import pytest

from veracity.contracts import Evidence
from veracity.offline.judge.entailment_judge import EntailmentJudge
from veracity.offline.judge.relevance import (
    ABOUT_SIMILARITY,
    citation_off_topic,
    claim_subject,
    is_about,
    off_topic_reason,
    on_topic,
    same_subject_and_predicate,
)

NILE = "The Nile flows north through Sudan; its two branches meet at Khartoum."
EINSTEIN = "Albert Einstein was born in Ulm, in the German Empire, in 1879, and later lived in Germany and the US."
CANBERRA = "Canberra is the capital city of Australia. Sydney is the capital of New South Wales."


def item(text: str, *, backend: str = "kb", title: str = "", number: int = 1) -> Evidence:
    return Evidence(id=f"c1-e{number}", claim_id="c1", title=title, text=text, backend=backend)


def test_a_claim_that_opens_with_a_name_is_about_that_name() -> None:
    subject = claim_subject("Berlin is the capital of Germany.")
    assert subject.name is not None and subject.name.text == "Berlin" and subject.described == "Berlin"
    assert not is_about(subject, EINSTEIN)  # mentions Germany, says nothing about Berlin
    assert not is_about(subject, NILE)
    assert is_about(subject, "Berlin has been the capital of reunified Germany since 1990.")


def test_a_swapped_name_is_still_on_topic_so_it_can_refute() -> None:
    subject = claim_subject("Sydney is the capital of Australia.")
    assert is_about(subject, CANBERRA)


def test_a_title_counts_as_mentioning_the_subject() -> None:
    subject = claim_subject("The Sydney Opera House has over 2,000 rooms.")
    rooms = item("It has about 1,000 rooms, including several performance venues.", title="Sydney Opera House")
    assert not is_about(subject, rooms.text) and on_topic(subject, [rooms]) == [rooms]


def test_without_the_name_two_shared_content_words_are_needed() -> None:
    subject = claim_subject("Beethoven wrote nine symphonies.")
    assert not is_about(subject, "Shakespeare wrote 39 plays.")  # "wrote" alone is not the subject
    assert is_about(subject, "His nine symphonies are among the most performed.")


def test_other_claims_need_two_shared_content_words() -> None:
    subject = claim_subject("You can return the package within 30 days.")
    assert subject.name is None and "return" in subject.described
    assert is_about(subject, "Packages may be returned within 14 days of delivery.")
    assert not is_about(subject, "Returns are handled by our partner.")  # one shared word is not enough
    assert not is_about(subject, "Shipping is free on orders over 50 dollars.")
    assert not is_about(claim_subject("2 + 2 = 4."), "Two plus two makes four.")  # nothing to match: not about it


def test_a_name_later_in_the_claim_does_not_make_it_the_subject_and_meaning_can_stand_in_for_it() -> None:
    claim = "There is no trend in hurricane-related flooding in the U.S."
    subject = claim_subject(claim)
    assert subject.name is None
    flooding = item("Hurricane-related flooding has no clear long-term trend.")
    assert not is_about(subject, flooding.text)  # shared words, but the U.S. is not named
    judge = EntailmentJudge()
    assert on_topic(subject, [flooding], lambda found: judge.closeness(claim, found)) == [flooding]


def test_the_reason_names_the_subject_and_where_it_was_looked_for() -> None:
    subject = claim_subject("Mozart was born in 1756.")
    kb = off_topic_reason(subject, [item(NILE), item(EINSTEIN, number=2)])
    assert kb == "The knowledge base has nothing about Mozart: none of the 2 passage(s) found mentions it."
    assert off_topic_reason(subject, [item(NILE, backend="web")]).startswith("No search result mentions Mozart")
    assert off_topic_reason(subject, [item(NILE, backend="source")]) == "The source says nothing about Mozart."


def test_the_judge_says_unverifiable_without_an_unrelated_quote() -> None:
    output = EntailmentJudge().judge("Mozart was born in 1756.", [item(EINSTEIN), item(NILE, number=2)])
    assert output["label"] == "unverifiable" and output["quote"] is None and output["evidence_id"] is None
    assert "nothing about Mozart" in output["reason"]


def test_the_judge_still_refutes_from_evidence_about_the_subject() -> None:
    output = EntailmentJudge().judge("Sydney is the capital of Australia.", [item(NILE), item(CANBERRA, number=2)])
    assert output["label"] == "refuted" and output["evidence_id"] == "c1-e2"


def test_names_match_without_their_accents() -> None:
    subject = claim_subject("Angstrom was a Swedish chemist.")
    assert subject.name is not None and subject.name.text == "Angstrom"
    assert is_about(subject, "Anders Jonas Ångström (1814–1874) was a Swedish physicist.")


def test_shared_words_do_not_stand_in_for_a_missing_name() -> None:
    from veracity.offline.judge.relevance import claim_subject, is_about

    subject = claim_subject("Mount Fuji is the highest mountain in Japan.")
    assert not is_about(subject, "Mount Everest is the highest mountain on Earth above sea level.")
    assert is_about(subject, "Mount Fuji rises to 3,776 metres, the highest mountain in the country.")


@pytest.mark.parametrize(("claim", "text"), [
    ("Justice William O. Douglas served for 36 years.", "Douglas had the longest tenure of any Justice."),
    ("Gary Smith's research focuses on history.", 'Find sources: "Gary Smith" economist.'),
    ("Bristly Bellflowers grow on roadsides.", "Bristly Bellflower is a plant of Eurasia."),
])
def test_a_name_is_found_by_surname_stem_and_without_initials_or_possessive(claim: str, text: str) -> None:
    assert is_about(claim_subject(claim), text)


def test_a_namesake_sharing_the_surname_does_not_name_the_subject() -> None:
    assert not is_about(claim_subject("William O. Douglas was a judge."), "Kirk Douglas was an actor.")


def test_meaning_admits_an_item_without_shared_words_only_for_a_subject_with_no_name() -> None:
    unnamed = claim_subject("Sinking sand can trap a walker.")
    named = claim_subject("Mount Fuji is the highest mountain in Japan.")
    item = Evidence(id="c1-e1", claim_id="c1", text="Quicksand is a colloid of fine granular material.", backend="kb")
    assert on_topic(unnamed, [item]) == []
    assert on_topic(unnamed, [item], closeness=lambda _: ABOUT_SIMILARITY) == [item]
    assert on_topic(unnamed, [item], closeness=lambda _: ABOUT_SIMILARITY - 0.01) == []
    assert on_topic(named, [item], closeness=lambda _: 0.99) == []


def test_same_subject_and_predicate() -> None:
    claim = "Lake Tarn is 312 metres deep."
    assert same_subject_and_predicate(claim, "Lake Tarn reaches 300 metres deep in places.")
    assert same_subject_and_predicate(claim, "It is 95 metres deep.")  # opens with no name: the item's subject
    assert not same_subject_and_predicate(claim, "Lake Mere is 95 metres deep.")  # another subject
    assert not same_subject_and_predicate(claim, "Lake Tarn was surveyed in 1905.")  # another predicate
    assert same_subject_and_predicate(claim, "Lake Mere is 95 metres deep.", subject_may_differ=True)


def test_a_claim_opening_with_no_name_needs_one_of_its_later_names() -> None:
    subject = claim_subject("The largest desert in the world is the Sahara.")
    assert subject.name is None and subject.described == "Sahara"
    amazon = "The Amazon is the largest river in the world by volume."
    assert not is_about(subject, amazon)  # "largest" and "world" are not enough without the Sahara
    assert is_about(subject, "The Sahara is the largest hot desert in the world.")


def test_hyphenated_codes_and_bracketed_abbreviations_name_the_subject() -> None:
    icd = claim_subject("ICD-9 is a coding system used in billing.")
    assert is_about(icd, "Print Related Pages ICD-9-CM. ICD-9 and ICD-10 are both in use.")
    assert not is_about(icd, "ICD-10 replaced older codes.")  # another version is a namesake
    assert not is_about(claim_subject("The SM U-30 sank 42 ships."), "SM UB-30 was a German submarine.")
    acl = claim_subject("The Annual Meeting of the Association for Computational Linguistics (ACL) gave an award.")
    assert acl.name is not None and acl.name.text.endswith("Computational Linguistics")
    assert is_about(acl, "The ACL Best Demo Award went to a leaderboard paper.")


def test_a_citation_is_held_to_the_name_a_claim_opens_with_and_not_to_words_alone() -> None:
    nile = item(NILE)
    assert citation_off_topic("Berlin is the capital of Germany.", nile) is not None
    assert citation_off_topic("Berlin is the capital of Germany.", item("Berlin is Germany's capital.")) is None
    flooding = item("Hurricane-related flooding has no clear long-term trend.")
    assert citation_off_topic("There is no trend in hurricane-related flooding in the U.S.", flooding) is None

"""The difference reader's WordNet lexicon: base forms, relations, and the shipped tables' invariants."""

from __future__ import annotations

import threading

import pytest

from veracity.offline.difference.lexicon import Lexicon, default_lexicon


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return default_lexicon()


@pytest.mark.parametrize(
    ("claim", "passage", "relation"),
    [
        ("lyon", "marseille", "cohyponym"),  # both instances of city
        ("physics", "chemistry", "cohyponym"),  # both natural sciences
        ("hour", "minute", "cohyponym"),  # both time units
        ("cat", "dog", "cohyponym"),  # both two levels below carnivore
        ("permit", "forbid", "antonym"),
        ("buy", "sell", "antonym"),
        ("increase", "decrease", "antonym"),
        ("early", "late", "antonym"),
        ("wet", "dry", "antonym"),
        ("damp", "dry", "antonym"),  # indirect: damp is a satellite of wet
        ("allowed", "prohibited", "antonym"),  # synset level: allow ~ permit, prohibit ~ forbid
        ("dog", "animal", "hyponym"),  # the claim is more specific than the passage
        ("animal", "dog", "hypernym"),  # the passage ("dog") entails the claim ("animal")
        ("vehicle", "car", "hypernym"),  # four levels up
        ("lyon", "city", "hyponym"),  # through an instance hypernym
        ("big", "large", "synonym"),
        ("purchase", "buy", "synonym"),
        ("opened", "open", "same"),
        ("children", "child", "same"),  # noun.exc
        ("saw", "see", "same"),  # verb.exc
        ("New York", "new york", "same"),
        ("arrive", "arrival", "derived"),
        ("refund", "refundable", "derived"),  # WordNet 3.0 lacks "refundable": the suffix rule
        ("refundable", "nonrefundable", "antonym"),  # neither is in WordNet 3.0: the prefix rule
        ("blorfish", "dog", "none"),
        ("blorfish", "blorfish", "same"),
        ("paris", "france", "none"),  # a part holonym, which the tables do not hold
    ],
)
def test_relation(lexicon: Lexicon, claim: str, passage: str, relation: str) -> None:
    assert lexicon.relation(claim, passage) == relation


def test_weekly_and_monthly_are_cohyponyms_as_nouns(lexicon: Lexicon) -> None:
    # As adjectives WordNet does not relate them; as nouns both are periodicals ("a weekly", "a monthly").
    assert lexicon.relation("weekly", "monthly") == "cohyponym"
    assert lexicon.relation("monthly", "weekly") == "cohyponym"


def test_multi_word_lemmas(lexicon: Lexicon) -> None:
    assert lexicon.known("united states")
    assert lexicon.base_forms("New  York") == ("new york",)
    assert lexicon.relation("new york", "city") == "hyponym"


def test_base_forms(lexicon: Lexicon) -> None:
    assert lexicon.base_forms("children") == ("child",)
    assert lexicon.base_forms("opened") == ("opened", "open")  # the word itself first when it is a lemma
    assert lexicon.base_forms("biggest", pos="a") == ("big",)  # adj.exc
    assert lexicon.base_forms("bigger", pos="a") == ("bigger", "big")  # "bigger" is also a lemma of its own
    assert lexicon.base_forms("wider", pos="s") == ("wide",)  # satellites fold into adjectives; detachment rule
    assert lexicon.base_forms("leaves", pos="n") == ("leaf", "leave")  # noun.exc lists both
    assert lexicon.base_forms("leaves", pos="v") == ("leave",)
    assert lexicon.base_forms("blorfish") == ()
    assert not lexicon.known("blorfish")
    with pytest.raises(ValueError):
        lexicon.base_forms("dog", pos="x")


def test_cohyponyms_exclude_ancestors(lexicon: Lexicon) -> None:
    assert lexicon.relation("mammal", "dog") != "cohyponym"
    assert lexicon.relation("dog", "carnivore") != "cohyponym"


def test_default_lexicon_is_shared_across_threads() -> None:
    seen: list[Lexicon] = []
    threads = [threading.Thread(target=lambda: seen.append(default_lexicon())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(found) for found in seen}) == 1 and seen[0] is default_lexicon()


def test_table_invariants(lexicon: Lexicon) -> None:
    tables = lexicon._lemmas, lexicon._hypernyms, lexicon._antonyms, lexicon._derived  # noqa: SLF001
    lemmas, hypernyms, antonyms, derived = tables
    count = lexicon.synset_count
    assert count == 117_659 == len(hypernyms)
    assert set(lemmas) == {"n", "v", "a", "r"}
    assert all(0 <= s < count for table in lemmas.values() for synsets in table.values() for s in synsets)
    assert all(synsets for table in lemmas.values() for synsets in table.values())
    assert all(0 <= h < count for parents in hypernyms for h in parents)
    assert all(0 <= s < count for pair in lexicon._antonym_synsets for s in pair)  # noqa: SLF001
    for pairs in (antonyms, derived):
        assert all(word in pairs.get(other, ()) for word, others in pairs.items() for other in others)
        assert all(word not in others for word, others in pairs.items())
    assert "forbid" in antonyms["permit"] and "permit" in antonyms["forbid"]


def test_another_form_of_the_word_is_derived_before_it_is_a_cohyponym(lexicon: Lexicon) -> None:
    assert lexicon.relation("abort", "abortion") == "derived"  # also co-hyponyms in WordNet's taxonomy
    assert lexicon.relation("arrive", "arrival") == "derived"


def test_an_inflection_of_a_derived_noun_is_the_same_word(lexicon: Lexicon) -> None:
    assert lexicon.relation("sails", "sailings") == "same"  # sailings -> sailing -> sail

"""The offline claim splitter: which sentences become claims, how they split, and that every
payload passes the same extraction gate as a chat model's."""

from __future__ import annotations

import pytest

from veracity.contracts import ExtractionOutput
from veracity.nodes.extraction_gate import claims_from_output
from veracity.offline.extract import extract_claims_offline

OPERA = (
    "The Sydney Opera House was designed by a Danish architect and opened in 1973. "
    "It has over 2,000 rooms and was funded entirely by the federal government."
)
CAPITALS = (
    "Australia's capital is Canberra. Sydney is the capital of New South Wales. "
    "Isn't that surprising? I think Sydney is the most beautiful city in the world."
)
FAITHFUL = "You can return the package within 14 days of the delivery date. After that, returns are not accepted."
WARM = (
    "I completely understand how frustrating this must be, and I'm sorry for the trouble! "
    "You can return the package within 14 days of the delivery date."
)
INVENTED = (
    "I'm so sorry to hear that! Even though it has been more than 14 days since delivery, "
    "don't worry, we'll find some solution for you."
)


def _claims(text: str, *, source_mode: bool = False) -> list[str]:
    return [item["claim"] for item in extract_claims_offline(text, source_mode=source_mode)["claims"]]


def _sources(text: str, *, source_mode: bool = False) -> list[str]:
    return [item["source"] for item in extract_claims_offline(text, source_mode=source_mode)["claims"]]


# --------------------------------------------------------------------------- the reference texts


def test_coordinated_predicates_split_and_the_subject_carries_into_the_next_sentence() -> None:
    assert _claims(OPERA) == [
        "The Sydney Opera House was designed by a Danish architect.",
        "The Sydney Opera House opened in 1973.",
        "The Sydney Opera House has over 2,000 rooms.",
        "The Sydney Opera House was funded entirely by the federal government.",
    ]
    assert _sources(OPERA) == [
        "The Sydney Opera House was designed by a Danish architect",
        "opened in 1973",
        "It has over 2,000 rooms",
        "was funded entirely by the federal government",
    ]


def test_questions_and_opinions_are_not_claims() -> None:
    assert _claims(CAPITALS) == ["Australia's capital is Canberra.", "Sydney is the capital of New South Wales."]


def test_a_greeting_and_a_question_give_no_claims() -> None:
    assert _claims("Hello! How are you?") == []


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "?!"])
def test_empty_or_contentless_text_gives_no_claims(text: str) -> None:
    assert extract_claims_offline(text) == {"claims": [], "skipped": []}


def test_bare_interjections_are_listed_as_courtesy() -> None:
    payload = extract_claims_offline("Sure! OK.")
    assert payload == {"claims": [], "skipped": [{"source": "Sure", "reason": "courtesy"},
                                                 {"source": "OK", "reason": "courtesy"}]}


# --------------------------------------------------------------------------- source mode (policy answers)


def test_a_faithful_policy_answer_gives_one_claim_per_sentence() -> None:
    assert _claims(FAITHFUL, source_mode=True) == [
        "You can return the package within 14 days of the delivery date.",
        "After that, returns are not accepted.",
    ]


def test_a_warm_answer_keeps_only_the_policy_statement() -> None:
    assert _claims(WARM, source_mode=True) == ["You can return the package within 14 days of the delivery date."]


def test_an_invented_commitment_survives_the_courtesy_around_it() -> None:
    payload = extract_claims_offline(INVENTED, source_mode=True)
    assert payload == {
        "claims": [{"claim": "We'll find some solution for you.", "source": "we'll find some solution for you"}],
        "skipped": [{"source": "I'm so sorry to hear that", "reason": "courtesy"},
                    {"source": "don't worry", "reason": "courtesy"}],
    }


def test_a_separable_courtesy_clause_is_dropped_in_both_modes() -> None:
    text = "Don't worry, we'll find some solution for you."
    assert extract_claims_offline(text, source_mode=True) == {
        "claims": [{"claim": "We'll find some solution for you.", "source": "we'll find some solution for you"}],
        "skipped": [{"source": "Don't worry", "reason": "courtesy"}],
    }
    # without a source to hold it to, the promise is a statement about the future
    assert extract_claims_offline(text)["skipped"] == [
        {"source": "Don't worry", "reason": "courtesy"},
        {"source": "we'll find some solution for you", "reason": "prediction"},
    ]


def test_curly_apostrophes_are_courtesy_too() -> None:
    text = "I’m so sorry! Don’t worry, we’ll refund you within 5 days."
    assert _claims(text, source_mode=True) == ["We’ll refund you within 5 days."]


def test_source_mode_drops_apologies_even_when_they_mention_facts() -> None:
    text = "I'm sorry that your Acme order arrived late on May 3."
    assert _claims(text) == ["I'm sorry that your Acme order arrived late on May 3."]
    assert _claims(text, source_mode=True) == []


def test_courtesy_joined_by_a_conjunction_is_cut_off() -> None:
    assert _claims("I'm sorry but returns are not accepted after 14 days.", source_mode=True) == [
        "Returns are not accepted after 14 days."
    ]
    assert _claims("Sorry, the store opens at 9 but closes at 5. Thanks for asking!") == [
        "The store opens at 9.",
        "The store closes at 5.",
    ]


# --------------------------------------------------------------------------- what is not a claim


@pytest.mark.parametrize(
    "text",
    [
        "Hi!",
        "Hello there.",
        "Thanks for reaching out.",
        "Thank you so much for your patience!",
        "Best regards",
        "I understand.",
        "I completely understand how frustrating this is.",
        "I'm sorry for the trouble.",
        "Happy to help!",
        "Let me know if you have other questions.",
        "Hope this helps! Have a great day.",
        "Great question!",
        "Is the museum open on Sundays?",
        "Does the store open at 9",
        "Isn't that surprising?",
        "I think it's beautiful.",
        "This is the best city in the world.",
        "What a lovely building.",
        "How lovely!",
        "I love Paris.",
        "In my opinion, the tower is ugly.",
        "I feel that the policy is unfair.",
        "Our return policy is as follows:",
    ],
)
@pytest.mark.parametrize("source_mode", [False, True])
def test_non_claims_are_dropped(text: str, source_mode: bool) -> None:
    assert _claims(text, source_mode=source_mode) == []


def test_thanks_to_is_not_courtesy_and_greeting_words_in_titles_are_kept() -> None:
    assert _claims("Thanks to its design, the building won many awards.") == [
        "Thanks to its design, the building won many awards."
    ]
    assert _claims("Hey Jude is a song by the Beatles.") == ["Hey Jude is a song by the Beatles."]


def test_a_hedge_is_stripped_when_a_checkable_fact_remains() -> None:
    assert _claims("I believe the museum opened in 1973.") == ["The museum opened in 1973."]
    assert _sources("I believe the museum opened in 1973.") == ["the museum opened in 1973"]


def test_an_evaluative_conjunct_is_dropped_and_the_factual_one_kept() -> None:
    assert _claims("The Opera House opened in 1973 and is beautiful.") == ["The Opera House opened in 1973."]


def test_an_evaluation_measured_by_a_number_is_kept_but_a_name_does_not_make_taste_a_fact() -> None:
    assert _claims("Sydney had its best tourist season in 2019.") == ["Sydney had its best tourist season in 2019."]
    assert _claims("Sydney has the best beaches in Australia.") == []


# --------------------------------------------------------------------------- splitting


@pytest.mark.parametrize(
    "text",
    [
        "New South Wales and Victoria are states.",
        "The museum has paintings and sculptures.",
        "The shop sells new and used cars.",
        "The team is large and talented.",
        "Sales rose and fell.",
        "The Opera House was designed and built by Danish firms.",
        "Canberra was chosen as the capital in 1908 as a compromise between Sydney and Melbourne.",
        "We refund you within 5 days and send you a prepaid label.",
    ],
)
def test_and_between_nouns_or_shared_objects_keeps_the_sentence_whole(text: str) -> None:
    assert _claims(text) == [text]


def test_a_relative_clause_stops_splitting() -> None:
    text = "It was designed by Jørn Utzon, who won the Pritzker Prize and died in 2008."
    assert _claims(text) == [text]


def test_a_passive_conjunct_borrows_the_auxiliary() -> None:
    assert _claims("The bridge was founded in 1900 and renamed in 1950.") == [
        "The bridge was founded in 1900.",
        "The bridge was renamed in 1950.",
    ]
    assert _claims("It was painted red and used as a barn.") == ["It was painted red.", "It was used as a barn."]
    assert _claims("The museum is large and renowned for its art.") == [
        "The museum is large.",
        "The museum is renowned for its art.",
    ]


def test_present_tense_and_three_way_coordination() -> None:
    text = "The museum houses 3,000 works and attracts 2 million visitors a year, but it was closed in 2020."
    assert _claims(text) == [
        "The museum houses 3,000 works.",
        "The museum attracts 2 million visitors a year.",
        "The museum was closed in 2020.",
    ]
    assert _sources(text) == [
        "The museum houses 3,000 works",
        "attracts 2 million visitors a year",
        "it was closed in 2020",
    ]


def test_an_independent_clause_after_a_comma_keeps_its_own_subject() -> None:
    assert _claims("He was born in 1900 and died in 1980, and his son later became mayor.") == [
        "He was born in 1900.",
        "He died in 1980.",
        "His son later became mayor.",
    ]


def test_abbreviations_and_numbers_do_not_break_claims() -> None:
    text = (
        "Dr. Smith founded the clinic in 1990 and retired in 2010. "
        "The tower is 324.5 metres tall and weighs 10,100 tonnes. The U.S. capital is Washington, D.C."
    )
    assert _claims(text) == [
        "Dr. Smith founded the clinic in 1990.",
        "Dr. Smith retired in 2010.",
        "The tower is 324.5 metres tall.",
        "The tower weighs 10,100 tonnes.",
        "The U.S. capital is Washington, D.C.",
    ]


def test_semicolons_separate_claims_and_note_that_is_stripped() -> None:
    assert _claims("Please note that refunds are issued within 5 days; exchanges are free.") == [
        "Refunds are issued within 5 days.",
        "Exchanges are free.",
    ]


def test_a_period_inside_a_closing_quote_moves_outside() -> None:
    assert _claims('Mr. Jones said "the museum opened in 1973."') == ['Mr. Jones said "the museum opened in 1973".']


# --------------------------------------------------------------------------- pronouns


def test_possessives_and_demonstratives_resolve_to_the_previous_subject() -> None:
    text = (
        "The bridge opened in 1932, and it remains the longest in the city. "
        "Its arch is 134 metres high. This structure is made of steel."
    )
    assert _claims(text) == [
        "The bridge opened in 1932.",
        "The bridge remains the longest in the city.",
        "The bridge's arch is 134 metres high.",
        "The bridge is made of steel.",
    ]
    assert _sources(text)[2:] == ["Its arch is 134 metres high", "This structure is made of steel"]


def test_contractions_expand_when_the_pronoun_is_replaced() -> None:
    text = "The Eiffel Tower, completed in 1889, is 330 metres tall. It's the tallest structure in Paris."
    assert _claims(text) == [
        "The Eiffel Tower, completed in 1889, is 330 metres tall.",
        "The Eiffel Tower is the tallest structure in Paris.",
    ]


def test_they_resolves_to_a_plural_subject_and_a_question_resets_the_subject() -> None:
    text = "The Beatles formed in Liverpool in 1960. They released 13 albums. What about Queen? It formed in 1970."
    assert _claims(text) == [
        "The Beatles formed in Liverpool in 1960.",
        "The Beatles released 13 albums.",
        "It formed in 1970.",
    ]


def test_the_pronoun_stays_when_the_previous_subject_is_unclear() -> None:
    text = "When the bridge opened in 1932, it was the longest in the world. It carries 160,000 vehicles a day."
    assert _claims(text)[1] == "It carries 160,000 vehicles a day."


def test_expletive_it_is_not_resolved() -> None:
    text = "The package was delivered on May 3. It has been 14 days since delivery."
    assert _claims(text) == ["The package was delivered on May 3.", "It has been 14 days since delivery."]


def test_the_subject_carries_over_an_opinion_and_through_bullets() -> None:
    assert _claims("Paris is beautiful. It has 2 million people.") == ["Paris has 2 million people."]
    text = "- The store opens at 9 a.m. on weekdays.\n- It closes at 5 p.m.\n\nRefunds take 5-7 business days."
    assert _claims(text) == [
        "The store opens at 9 a.m. on weekdays.",
        "The store closes at 5 p.m.",
        "Refunds take 5-7 business days.",
    ]


def test_duplicate_claims_are_dropped() -> None:
    assert _claims("The museum opened in 1973. The museum opened in 1973!") == ["The museum opened in 1973."]


# --------------------------------------------------------------------------- the gate contract

GATE_TEXTS = [
    OPERA,
    CAPITALS,
    FAITHFUL,
    WARM,
    INVENTED,
    "The bridge opened in 1932, and it remains the longest in the city. Its arch is 134 metres high.",
    "Dr. Smith founded the clinic in 1990 and retired in 2010. The U.S. capital is Washington, D.C.",
    "- The store opens at 9 a.m.\n- It closes at 5 p.m.\n\n1. Refunds take 5-7 days; exchanges are free.",
    'He said "the museum opened in 1973." (It was rebuilt in 1990.) The company\'s profits rose 5.5% in Q3.',
    "I’m sorry! Don’t worry, we’ll refund you. It’s been 3 days since the order and it’s shipped.",
]


@pytest.mark.parametrize("text", GATE_TEXTS)
@pytest.mark.parametrize("source_mode", [False, True])
def test_payload_passes_the_extraction_gate(text: str, source_mode: bool) -> None:
    payload = extract_claims_offline(text, source_mode=source_mode)
    output = ExtractionOutput.model_validate(payload)
    assert output.claims or (text == INVENTED and not source_mode), "every sample text has at least one claim"
    assert all(item.source in text for item in output.skipped)
    for item in output.claims:
        assert item.source in text
        assert item.claim.endswith(".") and item.claim[0].isupper()
    claims, error = claims_from_output(output, text)
    assert error is None
    assert len(claims) == len(output.claims)  # no duplicates left for the gate to drop
    for claim in claims:
        assert text[claim.span[0]:claim.span[1]] == claim.source


def test_output_is_deterministic() -> None:
    assert extract_claims_offline(OPERA + " " + INVENTED) == extract_claims_offline(OPERA + " " + INVENTED)


@pytest.mark.parametrize("framed", [
    "As everyone knows, Sydney is the capital of Australia.",
    "It is well known that Sydney is the capital of Australia.",
    "Obviously, Sydney is the capital of Australia.",
    "Studies confirm that Sydney is the capital of Australia.",
    "Everyone knows that Sydney is the capital of Australia.",
    "Sydney is the capital of Australia, right?",
    "Sydney is the capital of Australia, isn't it?",
])
def test_framing_and_tag_questions_leave_the_bare_claim(framed: str) -> None:
    [claim] = extract_claims_offline(framed)["claims"]
    assert claim["claim"] == "Sydney is the capital of Australia."
    assert claim["source"] in framed  # the span still points into the original text


def test_a_real_question_is_still_not_a_claim() -> None:
    assert extract_claims_offline("Is Sydney the capital of Australia?")["claims"] == []

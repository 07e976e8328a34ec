"""The check-worthiness rule: courtesy, questions, opinions and predictions are not claims; facts are,
even when they look like a value judgement (a measurable superlative) or a forecast (a timetable)."""

from __future__ import annotations

import pytest

from veracity.offline.extract import skip_reason


@pytest.mark.parametrize("statement", [
    "Thanks for reaching out!",
    "Thank you so much for your patience.",
    "Happy to help.",
    "I'd be glad to assist.",
    "I understand.",
    "I completely understand how you feel.",
    "Is there anything else?",
    "Is there anything else I can help you with today?",
    "How can I help you today?",
    "Hello there!",
    "Good morning.",
    "Nice to meet you.",
    "Hope you're doing well.",
    "Have a wonderful weekend!",
    "Kind regards",
    "No worries!",
    "Sure!",
    "Let me check that for you.",
])
def test_courtesy(statement: str) -> None:
    assert skip_reason(statement) == "courtesy"


@pytest.mark.parametrize("statement", [
    "Is the museum open on Sundays?",
    "When did the bridge open?",
    "Which river flows through Vienna?",
    "Does the store close at 5",
    "Why is the sky blue?",
    "Have you been to Lisbon?",
])
def test_questions(statement: str) -> None:
    assert skip_reason(statement) == "question"


@pytest.mark.parametrize("statement", [
    "Did you know that the Eiffel Tower is 330 metres tall?",
    "Canberra is the capital of Australia, isn't it?",
    "The Danube flows through Vienna, right?",
])
def test_a_question_that_asserts_its_statement_is_a_claim(statement: str) -> None:
    assert skip_reason(statement) is None


@pytest.mark.parametrize("statement", [
    "Vienna is the most beautiful city in Europe.",
    "Lisbon is more charming than Madrid.",
    "Luigi's makes the best pizza in town.",
    "The best coffee in Melbourne is at Pellegrini's.",
    "That film is overrated.",
    "The sequel was underrated.",
    "The soup at this place is delicious.",
    "The lecture on Roman law was boring.",
    "The view from the tower is amazing.",
    "Mozart was the greatest composer who ever lived.",
    "Her second album is the worst of the decade.",
    "The new stadium looks ugly.",
    "Tasty food and friendly staff!",
    "Absolutely stunning!",
    "I love Venice.",
    "My favourite painter is Vermeer.",
    "In my opinion, the museum is too small.",
    "What a beautiful bridge.",
    "Rome is the most romantic city in the world.",
    "Everyone should visit Kyoto at least once.",
    "The government shouldn't raise taxes.",
])
def test_opinions_and_value_judgements(statement: str) -> None:
    assert skip_reason(statement) == "opinion"


@pytest.mark.parametrize("statement", [
    "The Burj Khalifa is the tallest building in the world.",
    "The Sahara is the largest hot desert on Earth.",
    "Mount Everest is the highest mountain above sea level.",
    "George Washington was the first president of the United States.",
    "The University of Bologna is the oldest university in continuous operation.",
    "The Nile is the longest river in Africa.",
    "Tokyo is the most populous metropolitan area in the world.",
    "The Louvre is the most visited museum in the world.",
    "Thriller is the best-selling album of all time.",
    "Freddie Mercury is best known as the lead singer of Queen.",
    "Norway won the greatest number of medals at the 2022 Winter Olympics.",
    "The company reported its best quarter ever in 2021, with revenue of $90 billion.",
    "Paris was voted the most beautiful city in the world by the readers of a travel magazine.",
    "Nice is a city on the French Riviera.",
    "Will Smith won an Oscar in 2022.",
    "When Harry Met Sally is a romantic comedy.",
    "Drinking alcohol can make an infection worse.",
    "The Great Barrier Reef lies off the coast of Queensland.",
])
def test_measurable_superlatives_and_named_judgements_are_facts(statement: str) -> None:
    assert skip_reason(statement) is None


@pytest.mark.parametrize("statement", [
    "Bitcoin will reach $200,000.",
    "The Lakers will win the championship.",
    "Robots will replace most office jobs.",
    "It's going to rain tomorrow.",
    "Sea levels are expected to rise by one metre.",
    "The company is likely to cut prices.",
    "Analysts predict that the market will crash.",
    "Inflation could climb again next year.",
    "We'll see record temperatures in 2030.",
    "There will be a recession.",
])
def test_predictions(statement: str) -> None:
    assert skip_reason(statement) == "prediction"


@pytest.mark.parametrize("statement", [
    "The museum opens at 9 am.",
    "The last train leaves at 11:30 pm on weekdays.",
    "The shop closes early on Sundays.",
    "The 2032 Summer Olympics will be held in Brisbane.",
    "The exhibition will open on 5 May.",
    "The bridge was expected to open in 1930 but opened in 1932.",
    "If you heat ice above 0 °C, it will melt.",
    "Eating garlic will not cure the flu.",
    "Surgical masks will not protect you from the virus.",
    "Drinking hot water will kill the virus.",
    "Halley's Comet is visible from Earth every 75 to 79 years.",
    "The meeting is scheduled for Monday.",
])
def test_timetables_scheduled_events_laws_and_effects_are_facts(statement: str) -> None:
    assert skip_reason(statement) is None


def test_in_source_mode_will_is_a_promise_to_check_not_a_prediction() -> None:
    assert skip_reason("We will refund you within 5 days.") == "prediction"
    assert skip_reason("We will refund you within 5 days.", source_mode=True) is None


def test_a_fact_with_a_courtesy_opening_is_still_a_claim() -> None:
    assert skip_reason("Thanks for asking, the museum opened in 1973.") is None
    assert skip_reason("The Sydney Opera House opened in 1973.") is None

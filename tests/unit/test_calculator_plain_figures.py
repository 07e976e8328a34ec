"""The calculator compares plain figures only: rates, differences and forecasts go to the judge."""

from __future__ import annotations

import datetime

import pytest

from veracity.calculator import calculate, parse_question
from veracity.calculator.plain import figure_problem, negated_in_clause
from veracity.calculator.values import find_measures
from veracity.contracts import Evidence

TODAY = datetime.date(2026, 11, 24)


def item(title: str, text: str, number: int = 1) -> Evidence:
    return Evidence(id=f"c1-e{number}", claim_id="c1", title=title, text=text, backend="kb")


def problem_of(text: str, figure: str) -> str | None:
    [measure] = [m for m in find_measures(text) if figure in text[m.start:m.end]]
    return figure_problem(text, measure)


@pytest.mark.parametrize(("text", "figure", "problem"), [
    ("The glacier retreats 40 metres every year.", "40 metres", "a rate"),
    ("The coast loses 2 feet every decade.", "2 feet", "a rate"),
    ("The sea warmed by 0.1 degrees Celsius per decade.", "0.1 degrees Celsius", "a rate"),
    ("The glacier retreats 40 metres per year.", "40 metres per year", None),  # a speed: its unit says so
    ("The sea absorbs about 2 billion tons per year.", "2 billion", "a rate"),  # the count's noun in between
    ("The river is 300 metres wider than it was in 1900.", "300 metres", "a difference from another figure"),
    ("The new tower is 40 metres (131 feet) taller than the old one.", "40 metres", "a difference from another figure"),
    ("There are 30 times more sheep than people.", "30", "a difference from another figure"),
    ("By 2100 the lake could be 5 metres shallower.", "5 metres", "a difference from another figure"),
    ("By 2100 the lake could reach 90 metres in depth.", "90 metres", "a possibility or a forecast"),
    ("Engineers expected the span to be 500 metres.", "500 metres", "a possibility or a forecast"),
    ("A study projects a rise of up to 132 cm (4.3 ft) by 2100.", "4.3 ft", "a possibility or a forecast"),
    ("Models predicting a span of 500 metres were wrong.", "500 metres", "a possibility or a forecast"),
    ("The tower will be 300 metres tall.", "300 metres", "a possibility or a forecast"),
    ("The tower is 300 metres tall.", "300 metres", None),
    ("The canal opened in May 1894 and is 58 kilometres long.", "58 kilometres", None),
    ("Light travels at 300,000 kilometres per second.", "kilometres per second", None),
    ("Will Lang is 1.9 metres tall.", "1.9 metres", None),
])
def test_what_kind_of_figure(text: str, figure: str, problem: str | None) -> None:
    assert problem_of(text, figure) == problem


def test_a_negation_counts_only_in_the_figures_own_clause() -> None:
    text = "The fence was not repaired and is 40 metres long."
    [measure] = find_measures(text)
    assert not negated_in_clause(text, measure)
    text = "The fence is not 40 metres long."
    [measure] = find_measures(text)
    assert negated_in_clause(text, measure)


@pytest.mark.parametrize("claim", [
    "The glacier retreats 40 metres every year.",
    "The river is now 300 metres wider than it was in 1900.",
    "In the worst case the lake could be 90 metres deep.",
    "There are over 30 times more sheep than people in the valley.",
])
def test_claims_with_such_figures_are_left_to_the_judge(claim: str) -> None:
    assert parse_question(claim) is None


def test_a_negation_in_another_clause_does_not_flip_the_computation() -> None:
    lake = item("Lake Tarn", "Lake Tarn is 312 metres deep at its deepest point.")
    answer = calculate("Lake Tarn was not dredged and is over 300 metres deep.", [lake], TODAY)
    assert answer is not None and answer.label == "supported", answer and answer.text


def test_a_forecast_or_a_change_in_the_evidence_is_not_read_as_the_figure() -> None:
    lake = item("Lake Tarn", "Lake Tarn could be 250 metres deep by 2100 as sediment builds up. Lake Tarn is "
                "30 metres deeper than Lake Mere. Lake Tarn is 312 metres deep at its deepest point.")
    answer = calculate("Lake Tarn is over 300 metres deep.", [lake], TODAY)
    assert answer is not None and answer.label == "supported", answer.text
    assert [used.value for used in answer.inputs] == ["312 metres"]
    only_forecast = item("Lake Tarn", "Lake Tarn could be 250 metres deep by 2100 as sediment builds up.")
    answer = calculate("Lake Tarn is over 300 metres deep.", [only_forecast], TODAY)
    assert answer is None or answer.label == "unverifiable"


def test_of_several_figures_in_a_sentence_the_one_in_the_claims_clause_is_read() -> None:
    maker = item("Acme", "Acme's bicycles are assembled in 12 countries and sold in over 90 countries.")
    answer = calculate("Acme's bicycles are sold in more than 80 countries.", [maker], TODAY)
    assert answer is not None and answer.label == "supported", answer and answer.text
    assert [used.value for used in answer.inputs] == ["over 90"]
    answer = calculate("Acme's bicycles are assembled in more than 20 countries.", [maker], TODAY)
    assert answer is not None and answer.label == "refuted", answer and answer.text

"""Limits: a figure read as a rule reads it, the most or the least there may be, and the period it counts in.

"Do not take more than 8 tablets in 24 hours" states an upper limit: at most 8 tablets per 24 hours.
So do "no more than", "not more than", "at most", "up to", "a maximum of", "limited to" and "8 or
fewer"; lower limits mirror them ("at least", "no fewer than", "not less than", "a minimum of", "18 or
older"). A negation before a strict comparison states a limit, not a denial: "do not take more than 8"
and "must not exceed 8" are at most 8, "not under 18" at least 18. A plain amount is permitted ("you
can take 6 tablets") or forbidden ("you cannot take 10 tablets") by the words of its clause, or neither.

`rule_figures` reads each figure of a sentence so, with the period it counts in ("in 24 hours", "a
day", "per week", "daily") and whether it is an age ("18 years old", "16 or older", "aged 16");
`veracity.calculator.bounds` compares a claim's figure with the limits the evidence states.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from veracity.calculator.plain import clause_of
from veracity.calculator.units import Unit, convert, unit_named
from veracity.calculator.values import NUMBER_PATTERN, Measure, find_measures, number_value
from veracity.offline.judge.words import STOPWORDS, content_stems, stem

Side = Literal["most", "least"]
"""Which limit a figure states: the most there may be, or the least."""
Stance = Literal["permits", "forbids"]
"""What a sentence says of a plain amount: that it is allowed, or that it is not."""

_FLAGS = re.IGNORECASE
_NEGATION = re.compile(r"\b(?:not|never|cannot)\b|n't\b", _FLAGS)
_PERMISSION = re.compile(r"\b(?:can|may|allowed|permitted|able|entitled|eligible|possible|ok|okay)\b", _FLAGS)
_PROHIBITION = re.compile(r"\b(?:do|does|must|should|shall|never|cannot)\b", _FLAGS)
"""Words that make a negated clause forbid rather than deny a fact: "do not take", "must not exceed"."""
_RULE = re.compile(
    r"\b(?:must|may|can|cannot|should|shall|allowed|permitted|required|requires?|needs?|eligible|entitled|never|"
    r"limits?|limited|maximum|minimum|max|min|only)\b|n't\b", _FLAGS)
"""Words that make a sentence a rule rather than a description ("must", "may", "limit", "maximum")."""
_BARE_BOUNDS = ("at least", "at most")
"""Limit phrases that also hedge plain descriptions ("at least 300 rooms"); every other one states a rule."""
_RULE_WORDS = (
    "allowed allow permitted permit able possible entitled eligible ok okay fine required require requirement need "
    "needed maximum minimum max min limit limited cap capped up least fewer less above below exceed exceeding never "
    "total daily weekly monthly yearly annually hourly hour day week month year period time single old older "
    "younger age aged please get receive have customer user person people everyone anyone"
)
RULE_STEMS = frozenset(content_stems(_RULE_WORDS))
"""Stems of the words of rules themselves ("allowed", "maximum", "day"): they say how, not of what."""

_PERIOD = re.compile(
    rf"\b(?:in|per|every|each|within|over|during|a|an)\s+(?:any\s+|one\s+|a\s+single\s+|a\s+)?"
    rf"(?:(?P<number>{NUMBER_PATTERN})[\s-]*)?(?P<unit>hours?|days?|weeks?|months?|years?)(?:\s+period)?\b"
    r"(?!\s+(?:old|of\s+age)\b)"  # "over 2 years old" is an age
    r"|\b(?P<adverb>hourly|daily|weekly|monthly|yearly|annually)\b",
    _FLAGS,
)
_ADVERB_UNITS = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month", "yearly": "year",
                 "annually": "year"}
_DAY = Unit("day", "time")
_COUNTED = re.compile(r"\s+([a-z]{3,})\b(?:\s+([a-z]{3,})\b)?", _FLAGS)
_AGE_AFTER = re.compile(r"\s*(?:old|of\s+age)\b", _FLAGS)
_AGE_BEFORE = re.compile(r"\b(?:aged|age(?:\s+(?:of|is|limit\s+is))?)\s*$", _FLAGS)
_NAMED_LIMIT = re.compile(r"\b(?P<most>maximum|max|limit)\b|\b(?P<least>minimum|min)\b", _FLAGS)
"""A limit named before a plain figure: "the maximum daily dose is 8 tablets", "the minimum age is 18"."""
_AGE_BOUNDS = re.compile(r"\b(?:older|younger)$", _FLAGS)


@dataclass(frozen=True)
class RuleFigure:
    """A figure of a sentence as a rule reads it.

    `side` is the limit it states (None: a plain amount, or a figure no limit rule reads, such as
    "over 8" or "about 8"); `stance` says whether its clause permits or forbids a plain amount (None:
    neither, or a limit); `period` is the days it counts in (None: no period said); `age` is
    whether it is someone's age.
    """

    measure: Measure
    unit: Unit
    side: Side | None
    stance: Stance | None
    period: float | None
    age: bool

    @property
    def usable(self) -> bool:
        """Whether a limit rule can compare it: a limit, or an amount the sentence permits or forbids."""
        return self.side is not None or self.stance is not None

    def value_in(self, unit: Unit) -> float:
        """The figure's value in `unit` (ValueError when the two cannot be compared)."""
        return convert(self.measure.value, self.unit, unit)


def rule_figures(text: str) -> list[RuleFigure]:
    """Every figure of `text` that has a unit (or is an age), each with its limit, stance, period and age.

    A figure that gives the period of another ("in 24 hours", "a day") is not one of them. When `text`
    names several periods, no figure has one (see `several_periods`).
    """
    periods = _periods(text)
    days = {days for _, _, days in periods}
    period = days.pop() if len(days) == 1 else None
    found = []
    for measure in _figures(text, periods):
        age = _is_age(text, measure)
        unit = _counted(text, measure) or measure.unit or (Unit("year", "time") if age else None)
        if unit is None:
            continue
        side, stance = _reading(text, measure)
        found.append(RuleFigure(measure, unit, side, stance, period, age))
    return found


def other_figures(text: str, compared: Sequence[Measure]) -> frozenset[str]:
    """The figures of `text` other than `compared` and its periods, as written ("under 12", "2")."""
    spans = {(measure.start, measure.end) for measure in compared}
    return frozenset(measure.text.lower() for measure in _figures(text, _periods(text))
                     if (measure.start, measure.end) not in spans)


def _figures(text: str, periods: list[tuple[int, int, float]]) -> list[Measure]:
    """The measures of `text` that do not give one of its `periods`."""
    return [measure for measure in find_measures(text)
            if not any(start < measure.end and measure.start < end for start, end, _ in periods)]


def _counted(text: str, measure: Measure) -> Unit | None:
    """The thing a count counts, by the last noun of its phrase: "10 paracetamol tablets" counts tablets."""
    if measure.unit is None or measure.unit.dimension != "count":
        return None
    words = _COUNTED.match(text, measure.end)
    if words is None:
        return measure.unit
    last = words.group(1)
    if words.group(2) and words.group(2).lower() not in STOPWORDS and stem(words.group(2)) not in RULE_STEMS:
        last = words.group(2)
    return Unit(f"count:{stem(last)}", "count")


def as_stated(text: str, measure: Measure) -> Measure:
    """`measure` with the hedge its clause gives it: "do not take more than 8" is at most 8, not over 8."""
    if measure.hedge in ("over", "under"):
        side, _ = _reading(text, measure)
        if side is not None:
            return dataclasses.replace(measure, hedge="at most" if side == "most" else "at least")
    return measure


def several_periods(text: str) -> bool:
    """Whether `text` names more than one period ("8 a day and 40 a week"), so no figure's period is clear."""
    return len({days for _, _, days in _periods(text)}) > 1


def states_a_rule(text: str, figure: RuleFigure) -> bool:
    """Whether `text` states `figure` as a rule: a rule word ("must", "limit"), or a limit phrase only rules use.

    "At least 300 rooms" describes; "a minimum of 300 rooms", "up to 10 tablets" and "you must be at
    least 18" state rules.
    """
    if _RULE.search(text):
        return True
    return figure.side is not None and not figure.measure.text.lower().startswith(_BARE_BOUNDS)


def _reading(text: str, measure: Measure) -> tuple[Side | None, Stance | None]:
    """The limit `measure` states in `text`, or the stance of its clause on it as an amount."""
    start, end = clause_of(text, measure)
    words = f"{text[start:measure.start]} {text[measure.end:end]}"  # the clause, less the figure and its hedge
    negated = _NEGATION.search(words) is not None
    hedge = measure.hedge
    if hedge in ("at most", "at least"):
        return (None if negated else ("most" if hedge == "at most" else "least")), None
    if hedge in ("over", "under"):
        return (("most" if hedge == "over" else "least") if negated else None), None
    if hedge != "exact":
        return None, None
    named = None if negated else _NAMED_LIMIT.search(text, start, measure.start)
    if named is not None:
        return ("most" if named.group("most") else "least"), None
    if negated:
        return None, "forbids" if _PERMISSION.search(words) or _PROHIBITION.search(words) else None
    return None, "permits" if _PERMISSION.search(words) else None


def _is_age(text: str, measure: Measure) -> bool:
    """Whether `measure` is someone's age: "18 years old", "16 or older", "aged 16", "at the age of 16"."""
    if measure.unit is not None and measure.unit.name != "year":
        return False
    return bool(_AGE_AFTER.match(text, measure.end) or _AGE_BOUNDS.search(measure.text)
                or _AGE_BEFORE.search(text, 0, measure.start))


def _periods(text: str) -> list[tuple[int, int, float]]:
    """Each period `text` names ("in 24 hours", "a day", "daily"): its span and its length in days."""
    found = []
    for match in _PERIOD.finditer(text):
        word = match.group("unit") or _ADVERB_UNITS[match.group("adverb").lower()]
        unit = unit_named(word)
        number = number_value(match.group("number")) if match.group("number") else 1.0
        if unit is None or number is None:
            continue
        found.append((match.start(), match.end(), convert(number, unit, _DAY)))
    return found

"""Numbers and measures in text: "2,000 rooms", "about 330 metres", "six years", "8,848.86 m".

Each `Measure` keeps the span it was read from, so that the sentence holding it can be quoted,
and the hedge in front of it ("about", "over"), which widens or bounds the value it states.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from veracity.calculator.units import CURRENCY_SYMBOLS, UNIT_PATTERN, Unit, unit_named
from veracity.offline.judge.words import STOPWORDS, stem

Hedge = Literal["exact", "about", "over", "under", "at least", "at most", "nearly"]
"""How a stated number is hedged in the text."""

HEDGES: tuple[tuple[str, Hedge], ...] = (
    ("no more than", "at most"), ("not more than", "at most"), ("no less than", "at least"),
    ("not less than", "at least"), ("no fewer than", "at least"), ("not fewer than", "at least"),
    ("more than", "over"), ("greater than", "over"), ("higher than", "over"), ("in excess of", "over"),
    ("upwards of", "over"), ("well over", "over"), ("just over", "over"), ("over", "over"), ("above", "over"),
    ("exceeding", "over"), ("exceeds", "over"), ("exceed", "over"), ("at least", "at least"),
    ("a minimum of", "at least"), ("minimum of", "at least"), ("minimum", "at least"), ("less than", "under"),
    ("fewer than", "under"), ("lower than", "under"), ("well under", "under"), ("just under", "under"),
    ("under", "under"), ("below", "under"), ("at most", "at most"), ("up to", "at most"),
    ("a maximum of", "at most"), ("maximum of", "at most"), ("maximum", "at most"), ("limited to", "at most"),
    ("capped at", "at most"), ("nearly", "nearly"), ("almost", "nearly"), ("about", "about"), ("around", "about"),
    ("approximately", "about"), ("roughly", "about"), ("some", "about"), ("circa", "about"),
    ("an estimated", "about"), ("estimated", "about"), ("exactly", "exact"),
)
"""Hedge phrases; a phrase comes before any shorter one it ends with ("no more than" before "more than")."""

BOUND_AFTER: dict[str, Hedge] = {
    "fewer": "at most", "less": "at most", "under": "at most", "below": "at most", "younger": "at most",
    "more": "at least", "over": "at least", "above": "at least", "older": "at least", "greater": "at least",
}
"""The word of a limit written after its figure: "5 or fewer items" (at most 5), "18 or older" (at least 18)."""
_BOUND_AFTER = re.compile(rf"\s+(?:or|and)\s+({'|'.join(BOUND_AFTER)})\b", re.IGNORECASE)
_AGE_WORDS = ("older", "younger")

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "a hundred": 100, "a dozen": 12,
    "dozen": 12, "a thousand": 1000,
}
SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

_WORD_NUMBER = "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
NUMBER_PATTERN = (
    rf"(?:(?<![\w.,])\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?(?![\d,]\d)|(?<![\w.,])\d+(?:\.\d+)?(?![\w]|[.,]\d)"
    rf"|\b(?:{_WORD_NUMBER})(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?\b)"
    rf"(?:\s+(?:{'|'.join(SCALES)})\b)?"
)
"""A number in digits or words, with an optional scale word ("1.5 million", "twenty-one")."""
NUMBER = re.compile(NUMBER_PATTERN, re.IGNORECASE)
"""`NUMBER_PATTERN`, compiled."""
_UNIT_AFTER = re.compile(rf"[\s-]*(?:{UNIT_PATTERN})", re.IGNORECASE)
_NOUN_AFTER = re.compile(r"\s+([a-z]{3,})\b")


@dataclass(frozen=True)
class Measure:
    """A number as stated in text: its value, unit (None for a bare number), hedge and span.

    A count ("39 plays") has the unit ``count:<stem of the noun>``.
    """

    value: float
    unit: Unit | None
    hedge: Hedge
    text: str
    start: int
    end: int

    @property
    def is_count(self) -> bool:
        """Whether this counts things ("39 plays") rather than measuring them."""
        return self.unit is not None and self.unit.dimension == "count"


def number_value(text: str) -> float | None:
    """The value of a number as written ("2,000", "8,848.86", "six", "twenty-one", "1.5 million")."""
    text = " ".join(text.lower().replace("-", " ").split())
    if text in NUMBER_WORDS:
        return float(NUMBER_WORDS[text])
    scale = 1.0
    for word, factor in SCALES.items():
        if text.endswith(" " + word):
            text, scale = text[: -len(word) - 1], factor
    if text == "a":
        return scale
    if text in NUMBER_WORDS:
        return NUMBER_WORDS[text] * scale
    parts = text.split()
    if len(parts) == 2 and parts[0] in NUMBER_WORDS and parts[1] in NUMBER_WORDS:
        return (NUMBER_WORDS[parts[0]] + NUMBER_WORDS[parts[1]]) * scale
    try:
        return float(text.replace(",", "")) * scale
    except ValueError:
        return None


def number_text(value: float) -> str:
    """A value as a computation shows it: whole numbers with separators ("2,000"), else three figures ("0.167")."""
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:,.0f}" if abs(value - round(value)) < 1e-9 or abs(value) >= 100 else f"{value:,.3g}"


def hedge_before(text: str, start: int) -> tuple[int, Hedge]:
    """The hedge phrase ending at `start` ("over 2,000": "over"), as (where it starts, which)."""
    head = text[max(0, start - 24):start].lower()
    stripped = head.rstrip()
    for phrase, hedge in HEDGES:
        if stripped.endswith(phrase):
            cut = len(stripped) - len(phrase)
            if cut == 0 or not stripped[cut - 1].isalnum():
                return start - (len(head) - cut), hedge
    return start, "exact"


def find_measures(text: str) -> list[Measure]:
    """Every number in `text` with its unit, or the noun it counts, and its hedge.

    A currency sign before the number is its unit ("£500"); a limit word after it is its hedge
    ("5 or fewer items": at most 5 items; "16 or older": at least 16 years). Years ("in 1886") are
    read here too, as bare numbers; `dates` reads them as dates.
    """
    found: list[Measure] = []
    for match in NUMBER.finditer(text):
        value = number_value(match.group(0))
        if value is None:
            continue
        begin, end = match.start(), match.end()
        unit: Unit | None = None
        if begin > 0 and text[begin - 1] in CURRENCY_SYMBOLS:
            begin -= 1
            unit = Unit(CURRENCY_SYMBOLS[text[begin]], "money")
        bound = _BOUND_AFTER.match(text, end)  # "5 or fewer items"
        end = bound.end() if bound else end
        unit_match = _UNIT_AFTER.match(text, end) if unit is None else None
        if unit_match is not None:
            unit = unit_named(unit_match.group(0))
            end = unit_match.end()
        elif unit is None:
            noun = _NOUN_AFTER.match(text, end)
            if noun is not None and noun.group(1) not in STOPWORDS:
                unit = Unit(f"count:{stem(noun.group(1))}", "count")
                bound = bound or _BOUND_AFTER.match(text, noun.end())  # "5 items or fewer" (the span stays "5")
        if bound is None and (bound := _BOUND_AFTER.match(text, end)) is not None:  # "18 years or older"
            end = bound.end()
        start, hedge = hedge_before(text, begin)
        if bound is not None and hedge == "exact":
            word = bound.group(1).lower()
            hedge = BOUND_AFTER[word]
            if unit is None and word in _AGE_WORDS:
                unit = Unit("year", "time")  # "16 or older": an age
        found.append(Measure(value, unit, hedge, text[start:end], start, end))
    return found

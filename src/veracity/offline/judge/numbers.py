"""Numbers in a claim and in evidence: quantities with their qualifier and role, and when two disagree.

"Over 2,000 rooms" against "about 1,000 rooms" is a mismatch; "opened in 1973" against "construction
began in 1959" is not (a year in another role). Deterministic, English-only heuristics.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from veracity.offline.judge.words import (
    MONTHS,
    NEGATION_CUES,
    STOPWORDS,
    lexical_coverage,
    stem,
    words,
)

Qualifier = Literal["=", ">=", "<=", "~"]
"""How a number is hedged: exact, "over"/"at least", "under"/"up to", or "about"."""

# Longer phrases first, so "no more than" is not read as "more than".
_QUALIFIERS: tuple[tuple[str, Qualifier], ...] = (
    ("no more than", "<="), ("no less than", ">="),
    ("more than", ">="), ("greater than", ">="), ("at least", ">="), ("upwards of", ">="), ("in excess of", ">="),
    ("over", ">="), ("above", ">="), ("exceeding", ">="), ("exceeds", ">="),
    ("less than", "<="), ("fewer than", "<="), ("at most", "<="), ("up to", "<="), ("under", "<="), ("below", "<="),
    ("about", "~"), ("around", "~"), ("approximately", "~"), ("roughly", "~"), ("nearly", "~"), ("almost", "~"),
    ("an estimated", "~"), ("estimated", "~"), ("some", "~"), ("circa", "~"), ("c.", "~"), ("~", "~"),
)
_QUALIFIER_WORDS = {word for phrase, _ in _QUALIFIERS for word in phrase.split()}
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}
_YEAR_PREPOSITIONS = {"in", "since", "by", "from", "until", "till", "before", "after", "during", "of", "circa", "year"}
_NUMBER = re.compile(r"(?<![\w.])(?<![^\W\d_]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|\.\d|,\d)")
_RANGE_JOINER = re.compile(r"\s*(?:[-–—]|to)\s*")
_NEXT = re.compile(r"\s*(%|per\s?cent\b|°\s?[CF]\b|[^\W\d_]+)")

APPROXIMATE_TOLERANCE = 0.10
"""Relative difference within which "about X" and "Y" are taken to agree."""

NUMBER_CONTEXT_COVERAGE = 0.6
"""For numbers whose role is weak (calendar years, numbers with no unit), the rest of the claim
must be covered at least this much by the sentence before a different number counts as a mismatch."""


@dataclass(frozen=True)
class Quantity:
    """A number found in text, with its qualifier and role.

    `role` is what the number counts or measures: the stemmed unit word after it ("room",
    "day", "percent"), "calendar-year" for years, "day-of-month" next to a month name, or else
    the nearest content word before it. `strong` says whether the role came from a unit.
    `text` is the phrase as written, qualifier and unit included ("over 2,000 rooms"). `upper` is
    the end of a range ("16-21 cm"), else None.
    """

    value: float
    text: str
    qualifier: Qualifier
    role: str | None
    strong: bool
    upper: float | None = None


def extract_quantities(text: str) -> list[Quantity]:
    """Find the numbers in `text` ("2,000", "14", "0.8", "1973", "1.5 million", "40%", "16-21 cm").

    A range ("16–21 cm", "1990 to 2000") is one quantity from `value` to `upper`. Numbers glued
    to letters ("CO2", "COVID-19") are not quantities.
    """
    matches = list(_NUMBER.finditer(text))
    quantities: list[Quantity] = []
    index = 0
    while index < len(matches):
        match = matches[index]
        value, scale, end = _number_value(text, match)
        upper: float | None = None
        last = match
        if index + 1 < len(matches) and _RANGE_JOINER.fullmatch(text, match.end(), matches[index + 1].start()):
            last = matches[index + 1]
            upper, upper_scale, end = _number_value(text, last)
            value *= upper_scale if scale == 1 else 1  # "1.5 to 2 million"
            index += 1
        following = _NEXT.match(text, end)
        unit = following.group(1) if following else ""
        before = [w for w in words(text[max(0, match.start() - 60):match.start()]) if not w[0].isdigit()]
        role, strong = _role(last, unit, before)
        if strong and role != "day-of-month" and following is not None:
            end = following.end()
        start, qualifier = _qualifier(text, match.start())
        quantities.append(
            Quantity(
                value=value, text=text[start:end].strip(), qualifier=qualifier, role=role, strong=strong, upper=upper
            )
        )
        index += 1
    return quantities


def _number_value(text: str, match: re.Match[str]) -> tuple[float, float, int]:
    """The number's value with a following "million" etc. applied, that scale, and where it ends."""
    value = float(match.group(1).replace(",", "") + (match.group(2) or ""))
    word = _NEXT.match(text, match.end())
    if word and word.group(1).lower() in _SCALES:
        scale = _SCALES[word.group(1).lower()]
        return value * scale, scale, word.end()
    return value, 1.0, match.end()


def _role(match: re.Match[str], unit: str, before: list[str]) -> tuple[str | None, bool]:
    lowered = unit.lower().replace(" ", "")
    previous = before[-1] if before else ""
    if lowered == "%" or lowered.startswith("percent"):
        return "percent", True
    if lowered.startswith("°"):
        return f"degree-{lowered[-1]}", True
    is_integer = match.group(2) is None and "," not in match.group(1)
    number = int(match.group(1).replace(",", ""))
    if is_integer and number <= 31 and (lowered in MONTHS or previous in MONTHS):
        return "day-of-month", True
    unit_is_word = unit[:1].islower() and lowered not in STOPWORDS and lowered not in NEGATION_CUES
    year_like = is_integer and len(match.group(1)) == 4 and 1000 <= number <= 2100
    if year_like and (previous in _YEAR_PREPOSITIONS or previous in MONTHS or not unit_is_word):
        return "calendar-year", False
    if unit_is_word and lowered not in MONTHS:
        return stem(unit), True
    for word in reversed(before):
        if word not in STOPWORDS and word not in NEGATION_CUES and word not in _QUALIFIER_WORDS:
            return stem(word), False
    return None, False


def _qualifier(text: str, start: int) -> tuple[int, Qualifier]:
    """Where the qualifier before a number ("over", "about", ...) starts, and its kind."""
    head = text[max(0, start - 30):start].rstrip().lower()
    offset = max(0, start - 30)
    for phrase, qualifier in _QUALIFIERS:
        if head.endswith(phrase) and (len(head) == len(phrase) or not head[-len(phrase) - 1].isalnum()):
            return offset + len(head) - len(phrase), qualifier
    return start, "="


def quantities_agree(claim: Quantity, evidence: Quantity) -> bool:
    """Whether the evidence's number is consistent with the claim's, given qualifiers and ranges.

    Each side is read as an interval: "14" is [14, 14], "16-21" is [16, 21], "over 2,000" is
    [2000, inf), "under 5" is (-inf, 5]; "about" on either side widens both intervals by
    `APPROXIMATE_TOLERANCE`. They agree when the intervals overlap.
    """
    approximate = "~" in (claim.qualifier, evidence.qualifier)
    low_c, high_c = _interval(claim, approximate)
    low_e, high_e = _interval(evidence, approximate)
    return max(low_c, low_e) <= min(high_c, high_e) + 1e-9 * max(1.0, abs(claim.value))


def _interval(quantity: Quantity, approximate: bool) -> tuple[float, float]:
    low = quantity.value
    high = quantity.upper if quantity.upper is not None else quantity.value
    if approximate:
        low, high = low - APPROXIMATE_TOLERANCE * abs(low), high + APPROXIMATE_TOLERANCE * abs(high)
    if quantity.qualifier == ">=":
        high = math.inf
    elif quantity.qualifier == "<=":
        low = -math.inf
    return low, high


@dataclass(frozen=True)
class NumberMismatch:
    """A claim number contradicted by a different number in the same role in the sentence."""

    claim: Quantity
    evidence: Quantity

    def describe(self) -> str:
        """E.g. "number mismatch: claim says over 2,000 rooms, evidence says about 1,000 rooms"."""
        return f"number mismatch: claim says {self.claim.text}, evidence says {self.evidence.text}"


def number_mismatch(claim: str, sentence: str) -> NumberMismatch | None:
    """Return the first claim number that the sentence contradicts, or None.

    A claim number is fine when the sentence holds an agreeing number (any role). It is
    contradicted when the sentence has no agreeing number but does have a number in the same
    role (same unit word, both calendar years, ...). For weak roles (calendar years, numbers
    without a unit) the rest of the claim must also be covered by the sentence
    (`NUMBER_CONTEXT_COVERAGE`), so "opened in 1973" is not contradicted by "construction
    began in 1959". A claim number with no counterpart at all gives no signal.
    """
    claim_quantities = extract_quantities(claim)
    if not claim_quantities:
        return None
    found = extract_quantities(sentence)
    context_coverage: float | None = None
    for wanted in claim_quantities:
        if any(quantities_agree(wanted, q) for q in found):
            continue
        rivals = [q for q in found if wanted.role is not None and q.role == wanted.role]
        if not rivals:
            continue
        if not (wanted.strong and rivals[0].strong):
            if context_coverage is None:
                numbers = frozenset(stem(w) for w in words(claim) if w[0].isdigit())
                context_coverage = lexical_coverage(claim, sentence, ignore=numbers)
            if context_coverage < NUMBER_CONTEXT_COVERAGE:
                continue
        return NumberMismatch(claim=wanted, evidence=rivals[0])
    return None

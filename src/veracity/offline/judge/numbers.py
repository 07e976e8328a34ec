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
"""The rest of the claim must be covered at least this much by the sentence (and its document's title)
before a different number in the same role counts as a mismatch: the number must be about the same thing."""


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
    tolerance: float = 0.0
    """How far the true value may lie from the written one, given how it is written: under one unit of
    its last digit ("8,848" may be 8,848.86), half a unit of its last non-zero digit for a round number
    ("21,000" may be 21,196; at most a tenth of it), and exact for calendar years."""


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
        if _in_name(text, match.start()):
            index += 1
            continue
        following = _NEXT.match(text, end)
        unit = following.group(1) if following else ""
        before = [w for w in words(text[max(0, match.start() - 60):match.start()]) if not w[0].isdigit()]
        role, strong = _role(last, unit, before)
        if strong and role != "day-of-month" and following is not None:
            end = following.end()
            rate = _RATE.match(text, end)
            if rate is not None:
                role = f"{role}/{stem(next(g for g in rate.groups() if g))}"
                end = rate.end()
        start, qualifier = _qualifier(text, match.start())
        quantities.append(
            Quantity(
                value=value, text=text[start:end].strip(), qualifier=qualifier, role=role, strong=strong, upper=upper,
                tolerance=_tolerance(match, value, role),
            )
        )
        index += 1
    return quantities


_RATE = re.compile(
    r"\s+(?:a|an|per|each|every)\s+(day|week|month|year|hour|minute|second|decade|century)\b"
    r"|\s+(daily|weekly|monthly|yearly|annually|hourly)\b", re.IGNORECASE)
"""A rate after a unit ("2,000 people a day"): a count per period is not a count."""
_NAME_BEFORE = re.compile(r"([A-Z][\w'’-]*)\s+$")


def _in_name(text: str, start: int) -> bool:
    """Whether the number at `start` is part of a name ("Blade Runner 2049", "Apollo 11", "Boeing 747").

    That is: it follows a capitalised word that is not a function word, a month or the first word of the text.
    """
    found = _NAME_BEFORE.search(text[max(0, start - 40):start])
    if found is None:
        return False
    word = found.group(1).lower()
    word_start = start - len(found.group(0))
    sentence_initial = not text[:max(0, word_start)].strip() or text[:word_start].rstrip()[-1:] in ".!?:;\n"
    return word not in STOPWORDS and word not in MONTHS and not sentence_initial


_GENERIC_UNITS = frozenset(stem(word) for word in """
    second minute hour day week month year decade century millennium
    metre meter kilometre kilometer km mile foot feet inch yard centimetre centimeter cm millimetre mm
    gram kilogram kg tonne ton pound lb ounce litre liter gallon acre hectare
    percent per percentage degree times people person
""".split()) | {"percent", "degree-c", "degree-f"}
"""Units that measure many different things (a duration, a length, a share): a number in one of them must
come with the rest of the claim to count as the same attribute. A count noun ("rooms", "countries") is
itself the attribute."""


def _generic(role: str | None) -> bool:
    return role is None or role.split("/")[0] in _GENERIC_UNITS


ROUND_TOLERANCE = 0.1
"""A round number ("21,000") may stand for a value at most this share away from it."""


def _tolerance(match: re.Match[str], value: float, role: str | None) -> float:
    """See `Quantity.tolerance`."""
    if role == "calendar-year":
        return 0.0
    decimals = match.group(2)
    if decimals:
        return 10.0 ** -(len(decimals) - 1) * (1.0 if decimals[-1] != "0" else 0.5)
    digits = match.group(1).replace(",", "")
    zeros = len(digits) - len(digits.rstrip("0"))
    if zeros == 0 or zeros == len(digits):
        return 1.0
    scale = value / float(digits) if float(digits) else 1.0  # "1.5 million": the scale multiplies the step
    return min(0.5 * 10.0 ** zeros * scale, ROUND_TOLERANCE * abs(value))


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
    if max(low_c, low_e) <= min(high_c, high_e) + 1e-9 * max(1.0, abs(claim.value)):
        return True
    # A rounding or truncation of the same figure: "8,848 metres" for "8,848.86 metres".
    gap = max(low_e - high_c, low_c - high_e)
    return gap < max(claim.tolerance, evidence.tolerance)


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


def number_mismatch(claim: str, sentence: str, about: str = "") -> NumberMismatch | None:
    """Return the first claim number that the sentence contradicts, or None.

    A claim number is fine when the sentence holds an agreeing number (any role; a rounding of
    the same figure agrees). It is contradicted when the sentence has no agreeing number but does
    have a number in the same role (same unit word, the same rate, both calendar years, ...) and
    says it of the same thing. A count noun ("rooms") names the attribute itself; for a year, a
    number without a unit or a unit that measures many things (years, metres, percent), the rest
    of the claim must be covered by the sentence and `about` (the title of the document it comes
    from) at least `NUMBER_CONTEXT_COVERAGE`. So "opened in 1973" is not contradicted by
    "construction began in 1959", nor "disappear in the next 35 years" by "every 4-7 years, an
    El Nino event ...". A claim number with no counterpart at all gives no signal; numbers inside
    names ("Apollo 11") are not quantities.
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
        if not (wanted.strong and rivals[0].strong) or _generic(wanted.role):
            if context_coverage is None:
                numbers = frozenset(stem(w) for w in words(claim) if w[0].isdigit())
                context_coverage = lexical_coverage(claim, f"{about}\n{sentence}", ignore=numbers)
            if context_coverage < NUMBER_CONTEXT_COVERAGE:
                continue
        return NumberMismatch(claim=wanted, evidence=rivals[0])
    return None

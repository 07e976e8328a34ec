"""Whether a figure in a sentence states a quantity plainly, the only kind the calculator compares.

"The Nile is 6,650 km long" states the Nile's length. Other figures look alike and are not:

* a rate whose "per ..." the figure's unit does not carry: "1 inch every ten years", "0.2 °C per
  decade", "2.3 metres per degree" ("40 metres per year" is a speed, which the units compare);
* a difference or ratio against something else: "20 feet higher than today", "1.78 °F warmer
  than the mid-century mean", "200 times more CO2";
* a possibility or a forecast: "could rise by six feet", "will rise 30 cm by 2050".

Comparing one of these with a plain figure, or two of them measured against different things,
gives a computation that is exact and beside the point (a forecast "refutes" a record, a
warming since 1950 "refutes" a rate per decade). Such a figure is left to the judge, which reads
the whole sentence. Negation counts only in the figure's own clause: in "has not accelerated and
still amounts to 1 inch", the "not" belongs to another statement.
"""

from __future__ import annotations

import re

from veracity.calculator.units import COMPARATIVES
from veracity.calculator.values import Measure

_FLAGS = re.IGNORECASE

_COMPARATIVE_WORDS = sorted({*COMPARATIVES, "more", "less", "fewer", "greater", "larger", "bigger", "smaller",
                             "lower", "shallower", "thicker", "thinner", "stronger", "weaker", "earlier", "later",
                             "cheaper", "brighter", "darker", "louder", "quieter"}, key=len, reverse=True)
_ASIDE = r"(?:\s*\([^)]*\))?"
"""A parenthesis right after a figure ("1.78 °F (0.99 °C) warmer"), skipped."""

_NOUN = r"(?:[a-z]+\s+)?"
"""The counted noun a count's span leaves out ("2 billion" of "2 billion tons per year")."""
_RATE_AFTER = re.compile(
    rf"^{_ASIDE}\s*{_NOUN}(?:per|every|each|/)\s*\w"
    rf"|^{_ASIDE}\s*{_NOUN}(?:a|an)\s+(?:year|decade|century|month|week|day|hour)\b"
    rf"|^{_ASIDE}\s*{_NOUN}(?:annually|yearly)\b",
    _FLAGS,
)
_DIFFERENCE_AFTER = re.compile(
    rf"^{_ASIDE}\s*{_NOUN}(?:{'|'.join(_COMPARATIVE_WORDS)})\b",
    _FLAGS,
)
"""A comparative just after the figure (its counted noun between): "20 feet higher", "200 times more"."""

_POSSIBLE = re.compile(
    r"\b(?:could|might|would|shall|(?-i:will|may)|project(?:s|ed|ing|ions?)|forecast(?:s|ed|ing)?|"
    r"predict(?:s|ed|ing|ions?)|expect(?:s|ed|ing)|scenarios?)\b|'ll\b",
    _FLAGS,
)
_NEGATION = re.compile(r"\b(?:not|never|no\s+longer)\b|n't\b", _FLAGS)
_CLAUSE_BREAK = re.compile(
    r"[;:,\"“”]|\s[-–—]\s|\b(?:and|but|while|whereas|which|who|although|though|because|implying|meaning|so)\b",
    _FLAGS,
)


def clause_of(text: str, measure: Measure) -> tuple[int, int]:
    """The span of the clause `measure` stands in: between the punctuation or joining words around it.

    Brackets do not end a clause: a figure in brackets restates the one before it ("132 cm (4.3 ft)").
    """
    start = 0
    for found in _CLAUSE_BREAK.finditer(text, 0, measure.start):
        start = found.end()
    following = _CLAUSE_BREAK.search(text, measure.end)
    return start, following.start() if following else len(text)


def figure_problem(text: str, measure: Measure) -> str | None:
    """Why `measure` in `text` is not a plain statement of a quantity ("a rate", ...), or None when it is."""
    after = text[measure.end:]
    if _RATE_AFTER.match(after):
        return "a rate"
    if _DIFFERENCE_AFTER.match(after):
        return "a difference from another figure"
    start, end = clause_of(text, measure)
    if _POSSIBLE.search(text, start, end):
        return "a possibility or a forecast"
    return None


def negated_in_clause(text: str, measure: Measure) -> bool:
    """Whether a negation stands in the figure's clause, before the figure."""
    start, _ = clause_of(text, measure)
    return _NEGATION.search(text, start, measure.start) is not None

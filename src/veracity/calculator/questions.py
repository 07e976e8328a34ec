"""A claim as a formal question: what quantity of which subject is compared with what.

"The Statue of Liberty is over 100 years old" becomes an *age* question (subject "The Statue of
Liberty", relation ">", threshold 100 years); "The Nile is longer than the Amazon" a *compare*
question. A claim of none of these shapes gives None and goes to the judge as usual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from veracity.calculator.plain import figure_problem, negated_in_clause
from veracity.calculator.units import COMPARATIVES, Unit, unit_named
from veracity.calculator.values import HEDGES, NUMBER_PATTERN, Hedge, Measure, find_measures

Kind = Literal["age", "since", "lifespan", "duration", "measure", "compare"]
Relation = Literal[">", ">=", "<", "<=", "=", "~", "nearly"]

RELATION_OF: dict[Hedge, Relation] = {
    "over": ">", "at least": ">=", "under": "<", "at most": "<=", "about": "~", "nearly": "nearly", "exact": "=",
}
RELATION_WORDS: dict[Relation, str] = {
    ">": ">", ">=": "≥", "<": "<", "<=": "≤", "=": "=", "~": "≈", "nearly": "nearly",
}

_HEDGE = "|".join(re.escape(phrase) for phrase, _ in HEDGES)
_AMOUNT = rf"(?P<amount>(?:(?:{_HEDGE})\s+)?{NUMBER_PATTERN})"
_TIME_UNIT = r"(?P<unit>years?|decades?|centuries|century)"
_BE = r"(?:is|are|was|were|'s|has\s+been|have\s+been|turns|turned|will\s+be)"
_NOT = r"(?P<neg>not\s+|n't\s+)?"
_FLAGS = re.IGNORECASE

_AGE = re.compile(
    rf"^(?P<subject>.+?)\s+{_BE}\s+(?:now\s+|already\s+|currently\s+)?{_NOT}{_AMOUNT}[\s-]+{_TIME_UNIT}[\s-]+old$",
    _FLAGS,
)
_STOOD = re.compile(
    rf"^(?P<subject>.+?)\s+(?:has|have)\s+{_NOT}(?:existed|stood|been\s+standing|been\s+around|been\s+open)\s+"
    rf"for\s+{_AMOUNT}\s+{_TIME_UNIT}$",
    _FLAGS,
)
_AGO = re.compile(rf"^(?P<subject>.+?)\s+{_AMOUNT}\s+{_TIME_UNIT}\s+ago$", _FLAGS)
_LIFESPAN = (
    re.compile(rf"^(?P<subject>.+?)\s+(?:died|passed\s+away)\s+(?:at\s+the\s+age\s+of|at\s+age|aged|at)\s+"
               rf"{_AMOUNT}(?:\s+years(?:\s+old)?)?$", _FLAGS),
    re.compile(rf"^(?P<subject>.+?)\s+lived\s+(?:to\s+(?:the\s+age\s+of|be)\s+|for\s+|to\s+){_AMOUNT}"
               rf"(?:\s+years(?:\s+old)?)?$", _FLAGS),
    re.compile(rf"^(?P<subject>.+?)\s+was\s+{_NOT}{_AMOUNT}(?:\s+years\s+old)?\s+when\s+(?:he|she|they)\s+died$",
               _FLAGS),
)
_DURATION = re.compile(
    rf"^(?P<subject>.+?)\s+{_NOT}(?:took|lasted|spanned|ran\s+for|went\s+on\s+for|continued\s+for|took\s+about)\s+"
    rf"(?:for\s+)?{_AMOUNT}\s+(?P<unit>years?|decades?|centuries|century|months?|weeks?|days?)"
    r"(?:\s+to\s+(?:build|complete|finish|construct|make|write))?$",
    _FLAGS,
)
_COMPARATIVE = "|".join(COMPARATIVES)
_COMPARE = re.compile(
    rf"^(?P<subject>.+?)\s+(?:is|are|was|were|stands|runs|flows|travels|moves|goes|rises|reaches|extends|stretches|"
    rf"grows|spans|flies|lived|lives|'s)\s+{_NOT}"
    rf"(?:much\s+|far\s+|slightly\s+|a\s+lot\s+|considerably\s+|significantly\s+|even\s+)?"
    rf"(?P<adj>{_COMPARATIVE})\s+than\s+(?P<other>.+)$",
    _FLAGS,
)
_ORDER = re.compile(
    r"^(?P<subject>.+?)\s+(?:was|were)\s+(?P<neg>not\s+)?(?P<verb>born|built|founded|established|opened|completed|"
    r"constructed|created|formed|launched|published|discovered|dedicated)\s+"
    r"(?P<order>before|after|earlier\s+than|later\s+than|prior\s+to)\s+(?P<other>[^\d].*)$",
    _FLAGS,
)
"""Two things in time order: "Marie Curie was born before Albert Einstein" (a year after it is left to the judge)."""
_UNREAD_COMPARISON = re.compile(r"\b(?:[a-z]+er|more|less|fewer)\s+than\s*$", _FLAGS)
"""A comparison just before a figure ("faster than"), which an exact reading of the figure would drop."""
_PAST_VERB = re.compile(
    r"\b(?P<verb>[a-z]+ed|built|began|begun|won|wrote|written|made|became|flew|rose|fell|sank|held|took|"
    r"set|found|split|ran|led|born|bore|rose|grew|drew|threw|sang|swam|gave|came|went|saw|met|left|lost|sold|told|"
    r"brought|bought|fought|taught|caught|sent|spent|broke|spoke|froze|chose|stood|struck|hit|shot|beat|sank)\b",
    _FLAGS,
)
_MEASURED = ("length", "mass", "temperature", "speed", "area")


@dataclass(frozen=True)
class Question:
    """The formal comparison a claim makes.

    `subject` is the phrase the quantity belongs to; `other` the second subject of a comparison;
    `threshold` and `unit` what the claim states (None for a comparison of two subjects);
    `dimension` and `direction` what a comparison compares and which way (+1: `subject` more).
    `verb` is the event a "… N years ago" claim dates ("landed"). `negated` flips the answer.
    """

    kind: Kind
    subject: str
    relation: Relation
    threshold: float | None = None
    unit: Unit | None = None
    stated: str = ""
    other: str | None = None
    dimension: str | None = None
    direction: int = 1
    verb: str | None = None
    negated: bool = False
    predicate: str = ""
    """What a measure claim says of its subject, between the subject and the figure ("are sold in")."""


def _amount(match: re.Match[str], unit_text: str | None) -> Measure | None:
    measures = find_measures(match.group("amount") + (" " + unit_text if unit_text else ""))
    return measures[0] if measures else None


def _timed(kind: Kind, match: re.Match[str], *, unit_text: str | None, verb: str | None = None) -> Question | None:
    measure = _amount(match, unit_text)
    if measure is None:
        return None
    negated = bool(match.groupdict().get("neg"))
    return Question(
        kind=kind, subject=match.group("subject").strip(), relation=RELATION_OF[measure.hedge],
        threshold=measure.value, unit=measure.unit or Unit("year", "time"), stated=measure.text, verb=verb,
        negated=negated,
    )


def _since(match: re.Match[str]) -> Question | None:
    head = match.group("subject")
    verbs = list(_PAST_VERB.finditer(head))
    if not verbs:
        return None
    verb = verbs[-1]
    subject = head[:verb.start()].strip()
    subject = re.sub(r"\s+(?:was|were|had|has|have|did)(?:\s+not|n't)?$", "", subject, flags=_FLAGS)
    negated = bool(re.search(r"\b(?:not|never)\b|n't\b", head, _FLAGS))
    question = _timed("since", match, unit_text=match.group("unit"), verb=verb.group("verb").lower())
    if question is None or not subject:
        return None
    return Question(**{**question.__dict__, "subject": subject, "negated": negated})


def _compare(match: re.Match[str]) -> Question | None:
    dimension, direction = COMPARATIVES[match.group("adj").lower()]
    other = match.group("other").strip()
    negated = bool(match.group("neg"))
    measures = find_measures(other)
    unit = measures[0].unit if measures else None
    if measures and measures[0].start == 0 and unit is not None:
        measure = measures[0]
        relation: Relation = ">" if direction > 0 else "<"
        if dimension == "age" and unit.dimension == "time":
            return Question(kind="age", subject=match.group("subject").strip(), relation=relation,
                            threshold=measure.value, unit=measure.unit, stated=measure.text, negated=negated)
        return Question(kind="measure", subject=match.group("subject").strip(), relation=relation,
                        threshold=measure.value, unit=measure.unit, stated=measure.text, negated=negated)
    if measures and measures[0].start == 0:
        return None
    return Question(kind="compare", subject=match.group("subject").strip(), relation=">" if direction > 0 else "<",
                    other=other, dimension=dimension, direction=direction, negated=negated)


def _order(match: re.Match[str]) -> Question:
    earlier = match.group("order").lower().split()[0] in ("before", "earlier", "prior")
    direction = 1 if earlier else -1  # before: the subject came to be first, so it is older
    return Question(kind="compare", subject=match.group("subject").strip(), relation=">" if earlier else "<",
                    other=match.group("other").strip(), dimension="age", direction=direction,
                    verb=match.group("verb").lower(), negated=bool(match.group("neg")))


def _measure(claim: str) -> Question | None:
    measures = [m for m in find_measures(claim) if m.unit is not None and m.unit.dimension != "time"]
    physical = [m for m in measures if m.unit is not None and m.unit.dimension in _MEASURED]
    counted = [m for m in measures if m.is_count and m.hedge != "exact"]
    chosen = physical or counted
    if len(chosen) != 1:
        return None
    measure = chosen[0]
    subject = claim[:measure.start]
    if measure.hedge == "exact" and _UNREAD_COMPARISON.search(subject):
        return None  # "travels faster than 1,000 km/s" is no exact figure: the judge rules
    if figure_problem(claim, measure) is not None:
        return None  # a rate, a difference or a forecast: the judge reads it whole
    verb = re.search(rf"\s+(?:{_BE[3:-1]}|has|have|had|measures?|measured|stands?|stood|reaches|reached|runs?|"
                     r"covers?|covered|weighs?|weighed|boils?|freezes?|melts?|travels?|wrote|contains?|includes?|"
                     r"spans?|rises?|is\s+about|lies)\b", subject, _FLAGS)
    subject_text = subject[:verb.start()] if verb else subject
    negated = negated_in_clause(claim, measure)
    assert measure.unit is not None
    return Question(kind="measure", subject=subject_text.strip() or claim, relation=RELATION_OF[measure.hedge],
                    threshold=measure.value, unit=measure.unit, stated=measure.text, negated=negated,
                    predicate=subject[verb.start():].strip() if verb else "")


def parse_question(claim: str) -> Question | None:
    """The formal question `claim` asks, or None when it is not a computed claim."""
    text = " ".join(claim.strip().rstrip(".!").split())
    text = re.sub(r"\bhalf\s+(?:a|an)\s+(century|decade|year|month|day)\b", r"0.5 \1", text, flags=_FLAGS)
    text = re.sub(r"\b(?:a\s+)?quarter\s+(?:of\s+)?(?:a\s+)?(century|year)\b", r"0.25 \1", text, flags=_FLAGS)
    text = re.sub(r"\b(?:a|an|one)\s+(century|decade|year|month|week|day)\b", r"1 \1", text, flags=_FLAGS)
    if (match := _AGE.match(text)) or (match := _STOOD.match(text)):
        return _timed("age", match, unit_text=match.group("unit"))
    if match := _AGO.match(text):
        return _since(match)
    for pattern in _LIFESPAN:
        if match := pattern.match(text):
            return _timed("lifespan", match, unit_text="years")
    if match := _DURATION.match(text):
        return _timed("duration", match, unit_text=match.group("unit"))
    if match := _COMPARE.match(text):
        return _compare(match)
    if match := _ORDER.match(text):
        return _order(match)
    return _measure(text)


def described_unit(unit: Unit | None) -> str:
    """A unit as shown in a computation ("years", "meter", "play")."""
    if unit is None:
        return ""
    return str(unit_named(str(unit)) or unit)

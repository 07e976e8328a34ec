"""Compute a question's answer from evidence sentences, and say how, step by step.

Every input is read from a sentence of the evidence (the sentence is the quote the verdict
cites); today's date is the caller's (the system clock, recorded on the verdict). The answer is
`supported` or `refuted` only when every value the evidence allows gives the same answer; an
approximate figure that straddles the threshold, or an input the evidence does not give, is
`unverifiable` with the reason.
"""

from __future__ import annotations

import datetime
import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.calculator.answer import Answer, Used
from veracity.calculator.arithmetic import decide_arithmetic
from veracity.calculator.bounds import compare_limits
from veracity.calculator.dates import DateMention, find_dates, whole_years_between, year_ranges
from veracity.calculator.inputs import Source, Subject, subject_sources
from veracity.calculator.limits import as_stated
from veracity.calculator.plain import clause_of, figure_problem
from veracity.calculator.questions import RELATION_WORDS, Question, Relation, parse_question
from veracity.calculator.units import Unit, convert
from veracity.calculator.values import NUMBER, Measure, find_measures, number_text, number_value
from veracity.contracts import Evidence, Label
from veracity.offline.judge.words import content_stems

ORIGIN_WORDS = (
    "completed", "completion", "opened", "dedicated", "inaugurated", "unveiled", "finished", "founded",
    "established", "built", "constructed", "erected", "created", "launched", "formed", "born", "published",
    "released", "written", "discovered", "united", "unified", "federated", "incorporated",
)
"""Words before a date that mark when a thing came to be, in order of preference."""
START_WORDS = frozenset({"began", "begun", "started", "commenced", "begin", "beginning", "start"})
END_WORDS = frozenset({"completed", "completion", "finished", "ended", "opened", "end"})
BIRTH_WORDS = frozenset({"born", "birth"})
DEATH_WORDS = frozenset({"died", "death", "dies", "killed"})
EVENT_WORDS = frozenset(ORIGIN_WORDS) | START_WORDS | END_WORDS | DEATH_WORDS | {"baptised", "baptized"}

DAYS_PER_YEAR = 365.2425
"""Mean Gregorian year, for the time elapsed since an exact date."""

APPROXIMATE = 0.05
"""Relative width of "about X" in evidence."""
AROUND = 0.10
"""Relative width of "about X" in a claim."""
DISTINCT = 0.02
"""Relative difference under which two approximate figures are not ranked."""


@dataclass(frozen=True)
class _Dated:
    source: Source
    date: DateMention
    word: str


def calculate(claim: str, evidence: Sequence[Evidence], today: datetime.date) -> Answer | None:
    """Decide a computed claim from the evidence; None when the claim is not one (the judge rules)."""
    arithmetic = decide_arithmetic(claim)
    if arithmetic is not None:
        label: Label = "unverifiable" if arithmetic.holds is None else ("supported" if arithmetic.holds else "refuted")
        return Answer(label, arithmetic.text)
    limited = compare_limits(claim, evidence, today)
    if limited is not None:
        return limited
    question = parse_question(claim)
    if question is None:
        return None
    solver = {"age": _age, "since": _age, "lifespan": _lifespan, "duration": _duration,
              "measure": _measure, "compare": _compare}[question.kind]
    return solver(question, evidence, today)


# --------------------------------------------------------------------------- verdict wording


def _holds(value_low: float, value_high: float, relation: Relation, threshold: float) -> bool | None:
    """Whether every value in [low, high] satisfies the relation (True), none does (False), or some do."""
    tests = {
        ">": lambda v: v > threshold, ">=": lambda v: v >= threshold,
        "<": lambda v: v < threshold, "<=": lambda v: v <= threshold,
    }
    if relation in tests:
        low_ok, high_ok = tests[relation](value_low), tests[relation](value_high)
        return low_ok if low_ok == high_ok else None
    if relation == "nearly":
        inside = [threshold * (1 - AROUND) <= v <= threshold for v in (value_low, value_high)]
        if all(inside):
            return True
        if value_low > threshold or value_high < threshold * (1 - 2 * AROUND):
            return False
        return None
    width = AROUND * abs(threshold) if relation == "~" else 0.0
    band = (threshold - width - 1e-9, threshold + width + 1e-9)
    if band[0] <= value_low and value_high <= band[1]:
        return True
    if value_high < band[0] or value_low > band[1]:
        return False
    return None


def _label(holds: bool | None, negated: bool) -> Label:
    if holds is None:
        return "unverifiable"
    return "supported" if holds != negated else "refuted"


def _range(low: float, high: float, unit: str) -> str:
    shown = number_text(low) if number_text(low) == number_text(high) else f"{number_text(low)} to {number_text(high)}"
    return f"{shown} {unit}".strip()


def _conclusion(low: float, high: float, question: Question, unit: str) -> tuple[Label, str]:
    """The label, and "140 years; > 100: holds" (the value the evidence gives, then the claim's test)."""
    assert question.threshold is not None
    holds = _holds(low, high, question.relation, question.threshold)
    return _label(holds, question.negated), f"{_range(low, high, unit)}; {_test(question, holds)}"


def _test(question: Question, holds: bool | None) -> str:
    assert question.threshold is not None
    claim = f"{RELATION_WORDS[question.relation]} {number_text(question.threshold)}"
    result = {True: "holds", False: "does not hold", None: "cannot be decided from these figures"}[holds]
    negation = " (the claim says it is not so)" if question.negated and holds is not None else ""
    return f"{claim}: {result}{negation}"


def _missing(question: Question, what: str) -> Answer:
    return Answer("unverifiable", f"The evidence gives no {what} for {question.subject}, so nothing can be computed.")


# --------------------------------------------------------------------------- dates


def _nearest_event(before: Sequence[str], wanted: frozenset[str]) -> str | None:
    """The event word closest before a date or figure (one of ours, or one the caller wants)."""
    for word in reversed(before):
        if word in EVENT_WORDS or word in wanted:
            return word
    return None


def _dated(subject: Subject, sources: list[Source], wanted: frozenset[str], *, as_subject: bool) -> list[_Dated]:
    """Dates in the subject's sentences whose nearest event word is one of `wanted`.

    With `as_subject`, the subject must be what the sentence is about before the date. A year
    that opens a range ("built between 1887 and 1889") does not date a building; its end does.
    """
    found = []
    for source in sources:
        sentence = source.sentence.text
        starts_of_ranges = {first for first, last, _ in year_ranges(sentence) if first != last}
        for date in find_dates(sentence):
            word = _nearest_event(date.before, wanted)
            if word is None or word not in wanted:
                continue
            if date.year in starts_of_ranges and word in ("built", "constructed", "erected"):
                continue
            if as_subject and not subject.is_sentence_subject(sentence, _word_position(sentence, word, date.start)):
                continue
            found.append(_Dated(source, date, word))
    return found


def _word_position(sentence: str, word: str, limit: int) -> int:
    """Where the last `word` before `limit` starts in the sentence (`limit` when it is not there)."""
    found = [m.start() for m in re.finditer(rf"\b{re.escape(word)}\b", sentence[:limit], re.IGNORECASE)]
    return found[-1] if found else limit


_SUBORDINATE = re.compile(
    r"\b(?:until|till|when|whenever|while|after|before|because|although|though|whereas|unless|once|which|who|"
    r"whom|whose|where|but|than)\b", re.IGNORECASE,
)


def _in_main_clause(sentence: str, position: int) -> bool:
    """Whether the verb at `position` belongs to the sentence's main clause (no subordinate clause opens before it).

    "The lunar module Eagle landed on 20 July 1969" dates the landing; "It was the tallest until the
    Chrysler Building was completed in 1930" does not date the tower's completion.
    """
    return _SUBORDINATE.search(sentence, 0, position) is None


def _origin(subject: Subject, evidence: Sequence[Evidence], verb: str | None) -> _Dated | None:
    sources = subject_sources(subject, evidence)
    if verb is not None:
        by_verb = _dated(subject, sources, frozenset({verb}), as_subject=True) or [
            dated for dated in _dated(subject, sources, frozenset({verb}), as_subject=False)
            if _in_main_clause(dated.source.sentence.text, _word_position(dated.source.sentence.text, verb,
                                                                          dated.date.start))
        ]
        if by_verb:
            return by_verb[0]
    candidates = _dated(subject, sources, frozenset(ORIGIN_WORDS), as_subject=True)
    if not candidates:
        return None
    return min(candidates, key=lambda d: (d.source.rank, ORIGIN_WORDS.index(d.word) if d.word in ORIGIN_WORDS
                                          else len(ORIGIN_WORDS), d.source.order))


def _used(dated: _Dated) -> Used:
    return Used(dated.source.evidence, dated.source.quote, dated.date.text)


def _age(question: Question, evidence: Sequence[Evidence], today: datetime.date) -> Answer:
    subject = Subject.of(question.subject)
    origin = _origin(subject, evidence, question.verb)
    if origin is None:
        stated = _stated_age(subject, evidence, question.verb)
        if stated is not None:
            return _age_from_stated(question, stated, today)
        return _missing(question, "date it came to be" if question.kind == "age" else f"date for '{question.verb}'")
    if question.kind == "age" and origin.word == "born":
        death = _dated(subject, subject_sources(subject, evidence), DEATH_WORDS, as_subject=True)
        if death:
            return Answer("unverifiable", f"{question.subject} died ({death[0].date.text}); an age today is not "
                          "computed for someone who has died.", [_used(death[0])], today)
    fewest, most = whole_years_between(origin.date, today)
    unit = question.unit or Unit("year", "time")
    factor = convert(1, Unit("year", "time"), unit) if unit.name != "year" else 1.0
    low, high = fewest * factor, most * factor
    exact = origin.date.exact
    if exact is not None and question.relation in (">", ">=", "<", "<="):
        # "more than 140 years ago" holds 27 days after the 140th anniversary: compare the elapsed time itself
        days = (today - exact).days
        low = high = days / DAYS_PER_YEAR * factor
        holds = _holds(low, high, question.relation, question.threshold or 0.0)
        elapsed = f"{fewest} years and {_days_since_anniversary(exact, fewest, today)} days = {low:,.2f} {unit}"
        label, result = _label(holds, question.negated), f"{elapsed}; {_test(question, holds)}"
    else:
        label, result = _conclusion(low, high, question, str(unit))
    text = f"{question.subject}: {origin.word} {origin.date.text} → today {today.isoformat()} = {result}"
    return Answer(label, text, [_used(origin)], today)


def _days_since_anniversary(start: datetime.date, years: int, today: datetime.date) -> int:
    """Days from the `years`-th anniversary of `start` (28 February for 29 February in other years) to today."""
    try:
        anniversary = start.replace(year=start.year + years)
    except ValueError:
        anniversary = datetime.date(start.year + years, 2, 28)
    return (today - anniversary).days


_AGO = re.compile(r"\s+ago\b", re.IGNORECASE)


def _stated_age(subject: Subject, evidence: Sequence[Evidence], verb: str | None) -> _Read | None:
    """An age the evidence states outright for the subject: "It formed about 4.6 billion years ago"."""
    wanted = frozenset(ORIGIN_WORDS) | ({verb} if verb else set())
    for source in subject_sources(subject, evidence):
        sentence = source.sentence.text
        for measure in find_measures(sentence):
            if measure.unit is None or measure.unit.dimension != "time" or not _AGO.match(sentence, measure.end):
                continue
            before = [word.lower() for word in re.findall(r"[^\W\d_]+", sentence[:measure.start])]
            event = _nearest_event(before, wanted)
            if event in wanted and subject.is_sentence_subject(sentence, _word_position(sentence, event,
                                                                                        measure.start)):
                return _Read(source, measure)
    return None


def _age_from_stated(question: Question, stated: _Read, today: datetime.date) -> Answer:
    measure = stated.measure
    assert measure.unit is not None
    unit = question.unit or Unit("year", "time")
    low, high = (convert(value, measure.unit, unit) if math.isfinite(value) else value for value in _interval(measure))
    label, result = _conclusion(low, high, question, str(unit))
    used = [Used(stated.source.evidence, stated.source.quote, measure.text)]
    return Answer(label, f"{question.subject}: {measure.text} ago = {result}", used, today)


def _lifespan(question: Question, evidence: Sequence[Evidence], today: datetime.date) -> Answer:
    subject = Subject.of(question.subject)
    sources = subject_sources(subject, evidence)
    births = _dated(subject, sources, BIRTH_WORDS, as_subject=False)
    deaths = _dated(subject, sources, DEATH_WORDS, as_subject=False)
    if not births or not deaths:
        return _missing(question, "date of birth" if not births else "date of death")
    birth, death = births[0], deaths[0]
    fewest, most = whole_years_between(birth.date, death.date)
    label, result = _conclusion(fewest, most, question, "years")
    text = f"{question.subject}: born {birth.date.text}, died {death.date.text} = aged {result}"
    return Answer(label, text, [_used(birth), _used(death)], today)


def _duration(question: Question, evidence: Sequence[Evidence], today: datetime.date) -> Answer:
    subject = Subject.of(question.subject)
    sources = subject_sources(subject, evidence)
    named = set(content_stems(subject.name.text)) if subject.name is not None else set()
    topic = subject.stems - named
    for source in sources:
        for first, last, text in year_ranges(source.sentence.text):
            if not topic or topic & set(content_stems(source.sentence.text)) or source.rank == 0:
                return _duration_answer(question, last - first, f"{text} → {last} − {first}",
                                        [Used(source.evidence, source.quote, text)], today)
    starts = _dated(subject, sources, START_WORDS, as_subject=False)
    ends = [d for d in _dated(subject, sources, END_WORDS, as_subject=False)
            if starts and d.date.year >= starts[0].date.year]
    if not starts or not ends:
        return _missing(question, "start and end dates")
    start, end = starts[0], ends[0]
    years = end.date.year - start.date.year
    return _duration_answer(
        question, years, f"{start.word} {start.date.text}, {end.word} {end.date.text} → {end.date.year} − "
        f"{start.date.year}", [_used(start), _used(end)], today,
    )


def _duration_answer(question: Question, years: int, how: str, used: list[Used], today: datetime.date) -> Answer:
    unit = question.unit or Unit("year", "time")
    value = convert(years, Unit("year", "time"), unit) if unit.name != "year" else float(years)
    if unit.name not in ("year", "calendar_decade", "century"):
        return Answer("unverifiable", f"{question.subject}: {how} = {years} years; the evidence gives years, not "
                      f"{unit}, so a figure in {unit} cannot be checked.", used, today)
    label, result = _conclusion(value, value, question, str(unit))
    return Answer(label, f"{question.subject}: {how} = {result}", used, today)


# --------------------------------------------------------------------------- measures


def _interval(measure: Measure) -> tuple[float, float]:
    value = measure.value
    return {
        "exact": (value, value), "about": (value * (1 - APPROXIMATE), value * (1 + APPROXIMATE)),
        "nearly": (value * (1 - APPROXIMATE), value), "over": (value, math.inf), "at least": (value, math.inf),
        "under": (-math.inf, value), "at most": (-math.inf, value),
    }[measure.hedge]


@dataclass(frozen=True)
class _Read:
    source: Source
    measure: Measure


def _read(subject: Subject, evidence: Sequence[Evidence], claim_stems: set[str], dimension: str,
          unit: Unit | None, rival: Subject | None = None, wording: frozenset[str] = frozenset()) -> _Read | None:
    """The subject's figure of this dimension (or count noun), from its best sentence.

    `wording` is the claim's predicate ("freezes at"): with `claim_stems` it ranks the sentences
    (the one saying what the claim says first) and, of several figures in one sentence, picks the
    one whose clause shares most of them.
    """
    best: tuple[tuple[int, int, int], _Read] | None = None
    wanted = claim_stems | wording
    for source in subject_sources(subject, evidence, rival):
        text = source.sentence.text
        overlap = len(wanted & set(content_stems(text)))
        figures = [measure for measure in map(functools.partial(as_stated, text), find_measures(text))
                   if measure.unit is not None and measure.unit.dimension == dimension
                   and not (dimension == "count" and unit is not None and measure.unit.name != unit.name)
                   # a rate, a difference or a forecast is not the subject's figure
                   and figure_problem(text, measure) is None]
        if not figures:
            continue
        # Of several figures in one sentence, the one whose clause shares most words with the claim
        # ("manufactured in 18 countries and marketed in over 180"); the first on a tie.
        measure = max(figures, key=lambda figure: (_clause_overlap(text, figure, wanted), -figure.start))
        key = (source.rank, -overlap, source.order)
        if best is None or key < best[0]:
            best = (key, _Read(source, measure))
    return best[1] if best else None


def _clause_overlap(text: str, measure: Measure, claim_stems: set[str]) -> int:
    """How many of the claim's content words the clause holding `measure` has."""
    start, end = clause_of(text, measure)
    return len(claim_stems & set(content_stems(text[start:end])))


def _measure(question: Question, evidence: Sequence[Evidence], today: datetime.date) -> Answer | None:
    assert question.unit is not None and question.threshold is not None
    subject = Subject.of(question.subject)
    claim_stems = set(content_stems(question.subject + " " + question.stated)) - subject.stems
    wording = frozenset(content_stems(question.predicate)) - subject.stems
    read = _read(subject, evidence, claim_stems, question.unit.dimension, question.unit, wording=wording)
    if read is None:
        if question.relation == "=":
            return None  # a plain figure the evidence does not give: the judge words that best
        return _missing(question, f"figure in {question.unit.dimension} units")
    measure = read.measure
    assert measure.unit is not None
    if unread_numbers(question, read.source.sentence.text):
        return None  # the claim says more than the figure ("three bags of up to 32 kg"): the judge reads it
    if question.relation == "=" and measure.unit.name == question.unit.name:
        # The same unit: a reading question for the judge, unless only rounding separates the figures
        # ("8,849 metres" against "8,848.86 metres"), which a text model reads as a contradiction.
        if measure.value == question.threshold or abs(measure.value - question.threshold) > _rounding(question.stated):
            return None
        used = [Used(read.source.evidence, read.source.quote, measure.text)]
        text = (f"{question.subject}: {measure.text}; the claim says {question.stated}, the same figure rounded "
                f"(± {number_text(_rounding(question.stated))}): holds")
        return Answer(_label(True, question.negated), text, used, today)
    low, high = _interval(measure)
    if question.relation in ("=", "~", "nearly"):
        low = high = measure.value
    try:
        low, high = convert(low, measure.unit, question.unit), convert(high, measure.unit, question.unit)
    except ValueError as exc:
        return Answer("unverifiable", f"{question.subject}: {exc}.", [Used(read.source.evidence, read.source.quote,
                                                                           measure.text)], today)
    unit = str(question.unit)
    stated = measure.text + (f" {measure.unit}" if measure.is_count else "")
    used = [Used(read.source.evidence, read.source.quote, measure.text)]
    if question.relation == "=":
        tolerance = _tolerance(question.threshold, question.stated)
        holds = abs(low - question.threshold) <= tolerance
        text = (f"{question.subject}: {stated} = {number_text(low)} {unit}; the claim says "
                f"{number_text(question.threshold)} {unit} (± {number_text(tolerance)} for rounding): "
                f"{'holds' if holds else 'does not hold'}")
        return Answer(_label(holds, question.negated), text, used, today)
    if _other_limit(measure, question, low, high):
        return None  # "up to 10" against "at most 8": true of a measure, wrong of a rule; the judge reads which
    holds_now = _holds(low, high, question.relation, question.threshold)
    converted = "" if measure.unit.name == question.unit.name and measure.hedge == "exact" else (
        f" = {_range(low, high, unit)}")
    text = f"{question.subject}: {stated}{converted}; {_test(question, holds_now)}"
    return Answer(_label(holds_now, question.negated), text, used, today)


def _other_limit(measure: Measure, question: Question, low: float, high: float) -> bool:
    """Whether the claim states a limit of the same kind as the evidence's figure, but another one.

    "At most 10" follows from "at most 8" as a reading of a measure, and contradicts it as a rule
    (`veracity.calculator.bounds` decides the rules it can tell apart).
    """
    if measure.hedge == "at most" and question.relation == "<=":
        return abs(high - (question.threshold or 0.0)) > 1e-9
    if measure.hedge == "at least" and question.relation == ">=":
        return abs(low - (question.threshold or 0.0)) > 1e-9
    return False


def unread_numbers(question: Question, sentence: str) -> set[float]:
    """The numbers a measure claim states besides its figure (digits or words) that `sentence` does not hold.

    A measure claim is decided by one figure; a claim that also counts or dates something else
    ("three checked bags, each up to 32 kg") is decided only if the sentence read says that too.
    """
    claimed = _values(f"{question.subject} {question.predicate}") - _values(question.stated)
    return claimed - _values(sentence)


def _values(text: str) -> set[float]:
    """The values of the numbers written in `text`."""
    return {value for value in (number_value(match.group(0)) for match in NUMBER.finditer(text)) if value is not None}


def _rounding(stated: str) -> float:
    """Half the last unit of precision a figure is written with ("8,849" ± 0.5, "8,800" ± 50, "8.85" ± 0.005)."""
    digits = "".join(ch for ch in stated if ch.isdigit() or ch == ".")
    if "." in digits:
        return 10.0 ** -len(digits.split(".")[1]) / 2
    return 10.0 ** (len(digits) - len(digits.rstrip("0"))) / 2


def _tolerance(threshold: float, stated: str) -> float:
    """How far a converted figure may be from the claim's and still match it, given the claim's rounding."""
    return max(0.01 * abs(threshold), min(_rounding(stated), APPROXIMATE * abs(threshold)))


def _compare(question: Question, evidence: Sequence[Evidence], today: datetime.date) -> Answer:
    assert question.other is not None and question.dimension is not None
    first, second = Subject.of(question.subject), Subject.of(question.other)
    if question.dimension == "age":
        return _compare_ages(question, first, second, evidence, today)
    claim_stems: set[str] = set()
    reads = [_read(first, evidence, claim_stems, question.dimension, None, rival=second),
             _read(second, evidence, claim_stems, question.dimension, None, rival=first)]
    for read, subject in zip(reads, (question.subject, question.other), strict=True):
        if read is None:
            return Answer("unverifiable", f"The evidence gives no {question.dimension} for {subject}, so the two "
                          "cannot be compared.")
    a, b = reads[0], reads[1]
    assert a is not None and b is not None and a.measure.unit is not None and b.measure.unit is not None
    value_b = convert(b.measure.value, b.measure.unit, a.measure.unit)
    used = [Used(a.source.evidence, a.source.quote, a.measure.text), Used(b.source.evidence, b.source.quote,
                                                                          b.measure.text)]
    approximate = "exact" not in (a.measure.hedge, b.measure.hedge) or a.measure.hedge != "exact"
    difference = a.measure.value - value_b
    scale = max(abs(a.measure.value), abs(value_b), 1e-12)
    if approximate and abs(difference) / scale < DISTINCT:
        holds: bool | None = None
    else:
        holds = difference > 0 if question.direction > 0 else difference < 0
    unit = str(a.measure.unit)
    verb = "more" if question.direction > 0 else "less"
    result = {True: "holds", False: "does not hold", None: "too close to call from approximate figures"}[holds]
    converted = "" if b.measure.unit == a.measure.unit else f" = {number_text(value_b)} {unit}"
    text = (f"{question.subject}: {a.measure.text}; {question.other}: {b.measure.text}{converted}; "
            f"{question.subject} has {verb} {question.dimension}: {result}")
    return Answer(_label(holds, question.negated), text, used, today)


def _compare_ages(question: Question, first: Subject, second: Subject, evidence: Sequence[Evidence],
                  today: datetime.date) -> Answer:
    origins = [_origin(first, evidence, question.verb), _origin(second, evidence, question.verb)]
    for origin, name in zip(origins, (question.subject, question.other), strict=True):
        if origin is None:
            return Answer("unverifiable", f"The evidence gives no date for when {name} came to be, so their ages "
                          "cannot be compared.")
    a, b = origins[0], origins[1]
    assert a is not None and b is not None
    key_a = (a.date.year, a.date.month or 0, a.date.day or 0)
    key_b = (b.date.year, b.date.month or 0, b.date.day or 0)
    holds: bool | None
    if a.date.year == b.date.year and (a.date.exact is None or b.date.exact is None):
        holds = None
    else:
        older = key_a < key_b
        holds = older if question.direction > 0 else key_a > key_b
    result = {True: "holds", False: "does not hold", None: "the same year; the evidence cannot order them"}[holds]
    word = "older" if question.direction > 0 else "younger"
    text = (f"{question.subject}: {a.word} {a.date.text}; {question.other}: {b.word} {b.date.text}; "
            f"{question.subject} is {word}: {result}")
    return Answer(_label(holds, question.negated), text, [_used(a), _used(b)], today)

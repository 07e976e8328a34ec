"""A claim's figure against the limits its evidence states: "up to 10 tablets a day" against "at most 8 in 24 hours".

The claim is read as a rule too (`veracity.calculator.limits`): its one figure is a limit ("you can take
up to 10 tablets", "you must be 16 or older") or an amount it permits or forbids ("you can take 6
tablets"). Against an upper limit L in the evidence (a lower limit mirrors it):

* a claimed limit of L is supported; a higher one is refuted, since it allows what the evidence
  forbids (when either sentence states a rule: "at most 10" is no error of "at most 8" as a mere
  description); a lower one is unverifiable: the evidence allows more, so it does not say the
  limit is that low;
* a permitted amount up to L is supported, one above L refuted; a forbidden amount above L is
  supported (a forbidden amount within L is left to the judge: another rule may forbid it);
* a claimed lower limit above L is refuted: nothing meets both.

Two figures are compared only when they measure the same thing (tablets with tablets, pounds with
pounds, days with weeks, an age with an age) over periods that allow it: an amount above L in a
period no longer than the evidence's exceeds it, and one within L fits only in the same period, or
when the claim gives none ("you can take 6 tablets": at once). And only when the two sentences speak
of the same thing: every content word of the evidence sentence is in the claim, and every content
word of the claim is in the evidence sentence or its title, the words of rules aside ("can",
"maximum", "day"). Anything else is left to the judge (None): a claim with several figures, an
evidence that states two different limits of one kind, a period that does not fit.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.calculator.answer import Answer, Used
from veracity.calculator.limits import (
    RULE_STEMS,
    RuleFigure,
    Side,
    other_figures,
    rule_figures,
    several_periods,
    states_a_rule,
)
from veracity.calculator.values import number_text
from veracity.contracts import Evidence, Label
from veracity.offline.judge.words import content_stems
from veracity.sentences import Sentence, split_sentences

_SAME = 1e-9


@dataclass(frozen=True)
class _Limit:
    """A limit the evidence states: the figure, its value in the claim's unit, and where it was read."""

    evidence: Evidence
    sentence: Sentence
    figure: RuleFigure
    value: float
    rule: bool

    @property
    def side(self) -> Side:
        """Which limit it is."""
        assert self.figure.side is not None
        return self.figure.side

    @property
    def used(self) -> Used:
        """The computation's input: the sentence, as the evidence has it, and the limit as written."""
        quote = self.evidence.text[self.sentence.start:self.sentence.end]
        return Used(self.evidence, quote, self.figure.measure.text)


def compare_limits(claim: str, evidence: Sequence[Evidence], today: datetime.date) -> Answer | None:
    """The claim's figure decided by the limits of the evidence, or None when no limit decides it (see above)."""
    claimed = claimed_figure(claim)
    if claimed is None:
        return None
    limits = _limits(claimed, topic(claim, claimed), other_figures(claim, [claimed.measure]), evidence)
    if limits is None:
        return None
    rulings = [_ruling(claimed, limit, states_a_rule(claim, claimed) or limit.rule) for limit in limits]
    decided = [ruling for ruling in rulings if ruling is not None]
    refuting = next((ruling for ruling in decided if ruling[0] == "refuted"), None)
    if refuting is None and (not decided or len(decided) < len(rulings)):
        return None  # a limit it cannot be compared with may still forbid it: the judge reads the rest
    label, how, limit = refuting or next((r for r in decided if r[0] == "unverifiable"), decided[0])
    text = (f"limit: {described(limit.figure, limit.value, claimed)}; the claim: "
            f"{described(claimed, claimed.measure.value, claimed)}; {how}")
    return Answer(label, text, [limit.used], today)


def claimed_figure(claim: str) -> RuleFigure | None:
    """The claim's one figure a limit can decide: a limit, or an amount it permits or forbids.

    None when it has none or several. Its other figures ("children over 2 years old") must be the
    evidence's too (see `_limits`).
    """
    if several_periods(claim):
        return None
    usable = [figure for figure in rule_figures(claim) if figure.usable]
    return usable[0] if len(usable) == 1 else None


def topic(text: str, figure: RuleFigure) -> frozenset[str]:
    """What a sentence speaks of: its content stems less the figure, numbers, the thing counted and rule words."""
    rest = text[:figure.measure.start] + " " + text[figure.measure.end:]
    counted = figure.unit.name.removeprefix("count:") if figure.unit.dimension == "count" else ""  # a stem already
    return frozenset(stem for stem in content_stems(rest)
                     if stem not in RULE_STEMS and stem != counted and not stem.replace(".", "").isdigit())


def _limits(claimed: RuleFigure, claim_topic: frozenset[str], claim_others: frozenset[str],
            evidence: Sequence[Evidence]) -> list[_Limit] | None:
    """The evidence's limits on what the claim speaks of, one per side; None when there is none or two disagree.

    A sentence counts when it speaks of what the claim does (`topic`) and holds the same other figures
    ("children under 12"), besides its limits of the claim's kind.
    """
    found: dict[Side, list[_Limit]] = {}
    for item in evidence:
        title = frozenset(content_stems(item.title or ""))
        for sentence in split_sentences(item.text):
            text = sentence.text
            if several_periods(text):
                continue
            stated = [_Limit(item, sentence, figure, value, states_a_rule(text, figure))
                      for figure in rule_figures(text)
                      if figure.side is not None and figure.age == claimed.age
                      and (value := _value(figure, claimed)) is not None]
            if other_figures(text, [limit.figure.measure for limit in stated]) != claim_others:
                continue
            for limit in stated:
                said = topic(text, limit.figure)
                if said <= claim_topic and claim_topic <= said | title:
                    found.setdefault(limit.side, []).append(limit)
    for limits in found.values():
        if len({(round(limit.value, 9), limit.figure.period) for limit in limits}) > 1:
            return None  # two limits of one kind (for adults and for children?): the judge reads them
    return [limits[0] for limits in found.values()] or None


def _value(figure: RuleFigure, claimed: RuleFigure) -> float | None:
    """`figure`'s value in the claim's unit; None when the two measure different things (tablets, sachets)."""
    try:
        return figure.value_in(claimed.unit)
    except ValueError:
        return None


def _ruling(claimed: RuleFigure, limit: _Limit, rule: bool) -> tuple[Label, str, _Limit] | None:
    """The claim against one limit: its label and why, or None when this limit does not decide it."""
    bound, value = limit.value, claimed.measure.value
    upper = limit.side == "most"
    mine, theirs = claimed.period, limit.figure.period
    same = (mine is None and theirs is None) or (mine is not None and theirs is not None and abs(mine - theirs) < _SAME)
    fits = same or (mine is None and upper)  # an amount at once, within a limit per period
    narrower = mine is None or theirs is None or mine <= theirs + _SAME
    beyond = value > bound + _SAME if upper else value < bound - _SAME  # on the forbidden side of the limit
    equal = abs(value - bound) <= _SAME * max(1.0, abs(bound))
    if claimed.side == limit.side:
        if equal and fits:
            return "supported", "the same limit: holds", limit
        if beyond and (narrower if upper else same) and rule:
            return "refuted", "the claim allows what the limit does not: does not hold", limit
        if not beyond and not equal and fits:
            return ("unverifiable", "the claim's limit is stricter; the evidence allows more, so it does not say the "
                    "limit is this: cannot be decided", limit)
        return None
    if claimed.side is not None:  # the claim requires at least what the limit caps (or the reverse)
        if beyond and (narrower if upper else same):
            return "refuted", "nothing can meet both limits: does not hold", limit
        return None
    if claimed.stance == "permits":
        if beyond and (narrower if upper else same):
            return "refuted", "the claim allows an amount beyond the limit: does not hold", limit
        if not beyond and fits:
            return "supported", "within the limit: holds", limit
        return None
    if beyond and (narrower if upper else same):
        return "supported", "beyond the limit, so not allowed, as the claim says: holds", limit
    return None


def described(figure: RuleFigure, value: float, claimed: RuleFigure) -> str:
    """A figure as a computation shows it, in the claim's unit: "at most 8 tablet(s) per day"."""
    side = {"most": "at most ", "least": "at least ", None: ""}[figure.side]
    stance = {"permits": " (allowed)", "forbids": " (not allowed)", None: ""}[figure.stance]
    unit = "years of age" if figure.age else str(claimed.unit)
    return f"{side}{number_text(value)} {unit}{_per(figure.period)}{stance}"


def _per(days: float | None) -> str:
    """The period a figure counts in, as words: " per day", " per 7 days", " per 4 hours"."""
    if days is None:
        return ""
    if days < 1:
        return f" per {number_text(days * 24)} hours"
    return " per day" if abs(days - 1) < _SAME else f" per {number_text(days)} days"

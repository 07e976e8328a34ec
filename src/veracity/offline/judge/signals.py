"""Lexical signals that compare a claim with one evidence sentence.

Embedding similarity says whether two sentences are about the same thing, not whether they
agree: "Sydney is the capital of Australia" and "Canberra is the capital city of Australia"
have a cosine of about 0.82. The detectors in `numbers`, `negation` and `entities` look for the disagreements a cosine
cannot see (a different number, a flipped negation, another name in the same slot), each a
`Contradiction`; `words` measures how much of the claim's wording the sentence contains. The offline judge's
decider combines them; a learned entailment model can use them as features later.

All functions are deterministic, English-only heuristics with no model behind them.
"""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from veracity.offline.judge.entities import EntitySwap, description_match, entity_coverage, entity_swap
from veracity.offline.judge.hearsay import Hearsay, hearsay
from veracity.offline.judge.negation import NegationMismatch, negation_mismatch
from veracity.offline.judge.numbers import NumberMismatch, number_mismatch
from veracity.offline.judge.words import lexical_coverage


class Contradiction(Protocol):
    """A disagreement between a claim and an evidence passage, found by one detector."""

    def describe(self) -> str:
        """One line for people, e.g. "number mismatch: claim says over 2,000 rooms, evidence says ..."."""
        ...


ContradictionDetector = Callable[[str, str, str], Contradiction | None]
"""Looks at (claim, passage, the passage's document title) and returns the contradiction it finds, or None."""

CONTRADICTION_DETECTORS: dict[str, ContradictionDetector] = {
    "number": number_mismatch, "negation": negation_mismatch, "entity": entity_swap,
}
"""The detectors by the name a `Signals` field and the judge's config use for them."""


@dataclass(frozen=True)
class Signals:
    """Every signal for one (claim, evidence passage) pair."""

    coverage: float
    entity_coverage: float
    number: NumberMismatch | None = None
    negation: NegationMismatch | None = None
    entity: EntitySwap | None = None
    description: bool | None = None
    """`description_match`: False when the claim is "X is the D" and the passage does not state it."""
    hearsay: Hearsay | None = None
    """The passage asks about a statement or reports it as someone's claim, rather than asserting it."""

    @property
    def contradiction(self) -> Contradiction | None:
        """The contradiction signal that fired, if any (numbers first, then names, then negation).

        A negation mismatch together with an entity swap cancel out ("Sydney is not the capital"
        vs "Canberra is the capital"), so neither is reported.
        """
        if self.number is not None:
            return self.number
        if self.entity is not None and self.negation is not None:
            return None
        return self.entity or self.negation

    def as_features(self) -> dict[str, float]:
        """The signals as numbers, e.g. for a learned decider (1.0 = the signal fired)."""
        return {
            "coverage": self.coverage,
            "entity_coverage": self.entity_coverage,
            "number_mismatch": float(self.number is not None),
            "negation_mismatch": float(self.negation is not None),
            "entity_swap": float(self.entity is not None),
            "description_mismatch": float(self.description is False),
            "hearsay": float(self.hearsay is not None),
        }


def compute_signals(claim: str, passage: str, about: str = "") -> Signals:
    """Compute every signal for `claim` against one evidence sentence or window.

    `about` is the title of the document the passage comes from: a mismatch counts only when the
    passage speaks of what the claim speaks of, and the title says what "It ..." refers to.
    """
    return Signals(
        coverage=lexical_coverage(claim, passage),
        entity_coverage=entity_coverage(claim, passage),
        number=number_mismatch(claim, passage, about),
        negation=negation_mismatch(claim, passage),
        entity=entity_swap(claim, passage, about),
        description=description_match(claim, passage),
        hearsay=hearsay(passage, claim),
    )


def signal_name(signal: Contradiction) -> Literal["number", "negation", "entity"]:
    """The detector name of a contradiction signal ("number", "negation" or "entity")."""
    if isinstance(signal, NumberMismatch):
        return "number"
    if isinstance(signal, NegationMismatch):
        return "negation"
    if isinstance(signal, EntitySwap):
        return "entity"
    raise TypeError(f"not a contradiction signal: {signal!r}")

"""What an alignment of a claim with an evidence passage holds: matched spans and the differences left.

A `Match` pairs a claim span with the passage span that says the same (the same word, another form
of it, a synonym, a more general word, an equal number, a close paraphrase). A `Difference` is what
does not match: a claim span with the passage span in the same slot (a substitution), two spans in
crossed roles (a swap), a negation or a modality on one side only, or claim content with no
counterpart (an addition). The classifier (`veracity.offline.difference.classifier`) names each
difference meaning-preserving or meaning-changing; `changing` holds its probability.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

DifferenceKind = Literal["substitution", "swap", "polarity", "modality", "addition"]
"""What kind of difference: a span in the same slot replaced, two spans in crossed roles, a negation or a
modality on one side only, or claim content the passage has no counterpart for."""

SpanKind = Literal["number", "name", "word", "negation", "modal"]
"""What the claim's side of a difference is (the passage's side when the claim has none)."""

SLOT_KINDS: frozenset[DifferenceKind] = frozenset({"substitution", "swap", "polarity", "modality"})
"""Differences on a slot both sides fill: one of these named meaning-changing refutes the claim."""


@dataclass(frozen=True)
class Span:
    """Text at `[start, end)` of the claim or of the passage.

    A swap's span covers both swapped words, and its text names just the two, joined by "…"
    ("Canberra … Melbourne"); every other span's text is exactly the slice.
    """

    text: str
    start: int
    end: int

    def as_dict(self) -> dict[str, object]:
        """The span as JSON-ready data."""
        return {"text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class Match:
    """A claim span and the passage span that says the same, and how they relate."""

    claim: Span
    passage: Span
    relation: str
    """"same", "synonym", "hypernym" (the claim's word is more general), "derived", "equal" (numbers),
    "paraphrase" (close in meaning by embedding), "hyponym" (the claim's word is narrower)."""

    def as_dict(self) -> dict[str, object]:
        """The match as JSON-ready data."""
        return {"claim": self.claim.as_dict(), "passage": self.passage.as_dict(), "relation": self.relation}


@dataclass(frozen=True)
class Difference:
    """One difference between the claim and the passage, and the classifier's reading of it."""

    kind: DifferenceKind
    claim: Span | None
    passage: Span | None
    relation: str
    """The lexical relation of the two spans ("antonym", "cohyponym", "number", "none", ...), or for
    polarity and modality which side carries the negation or modal ("claim", "passage")."""
    span_kind: SpanKind
    displaced: bool = False
    """The claim's span also occurs elsewhere in the passage, in another slot (a name or role moved)."""
    anchored: float = 1.0
    """How firmly the slot is placed: 1.0 between two matches (or right beside one), 0.5 with a match on one
    side only, 0.0 with none."""
    beside_match: bool = False
    """Paired because both spans stand right beside the same match ("28 months" against "28 years")."""
    changing: float | None = None
    """P(the difference changes the meaning), from the classifier; None before it has read it."""
    features: dict[str, float] = field(default_factory=dict, compare=False, repr=False)
    """What the classifier read (for training and reports)."""

    @property
    def on_slot(self) -> bool:
        """Whether both sides fill the slot (everything but an addition)."""
        return self.kind in SLOT_KINDS

    def describe(self) -> str:
        """One line for people: what the source says where the claim says something else."""
        claim = f"'{self.claim.text}'" if self.claim else None
        passage = f"'{self.passage.text}'" if self.passage else None
        if self.kind == "addition":
            return f"the source says nothing that matches {claim}"
        if self.kind == "swap":
            return f"the source has {passage} in the other order: the claim swaps them ({claim})"
        if self.kind == "polarity":
            if self.relation == "passage":
                return f"the source negates it ({passage}) where the claim does not"
            return f"the claim negates it ({claim}) where the source does not"
        if self.kind == "modality":
            return f"the source says {passage} where the claim says {claim}"
        return f"the source says {passage} where the claim says {claim}"

    def as_dict(self) -> dict[str, object]:
        """The difference as JSON-ready data."""
        return {
            "kind": self.kind, "claim": self.claim.as_dict() if self.claim else None,
            "passage": self.passage.as_dict() if self.passage else None, "relation": self.relation,
            "span_kind": self.span_kind, "changing": None if self.changing is None else round(self.changing, 4),
        }


@dataclass(frozen=True)
class Alignment:
    """A claim aligned with one passage: what matches, what differs, and how much of the claim is matched."""

    claim: str
    passage: str
    matches: tuple[Match, ...]
    differences: tuple[Difference, ...]
    coverage: float
    """The share of the claim's content tokens matched (weighted by how well they match)."""
    filled: float = 0.0
    """The share of the claim's content tokens matched or standing in a slot the passage fills otherwise
    (a substitution or a swap): how much of the claim this passage speaks to, agreeing or not."""
    threshold: float = 0.5
    """P(changing) at or above which a difference is meaning-changing (the classifier's refute threshold)."""

    @property
    def reach(self) -> float:
        """How far the passage speaks to the claim: the mean of `coverage` and `filled`.

        "The barrier divided the city for more than 28 years" matches little of "For over 28 months, the
        wall split Berlin in two" (coverage 0.3), but it fills most of its slots (0.8): it is the
        sentence the claim relies on, and the one whose differences count.
        """
        return (self.coverage + self.filled) / 2

    def read(self, changing: list[float], threshold: float) -> Alignment:
        """This alignment with each difference's `changing` probability set (same order) and the threshold."""
        return replace(self, threshold=threshold, differences=tuple(
            replace(d, changing=p) for d, p in zip(self.differences, changing, strict=True)))

    def changing(self, threshold: float, *, on_slot: bool | None = None) -> list[Difference]:
        """Differences read as meaning-changing at `threshold`, most probable first (optionally only slot ones)."""
        found = [d for d in self.differences if d.changing is not None and d.changing >= threshold
                 and (on_slot is None or d.on_slot == on_slot)]
        return sorted(found, key=lambda d: -(d.changing or 0.0))

    def corrected_claim(self) -> str | None:
        """The claim with the passage's span put back for every meaning-changing substitution; None if none."""
        edits = [d for d in self.changing(self.threshold, on_slot=True)
                 if d.kind == "substitution" and d.claim is not None and d.passage is not None]
        if not edits:
            return None
        text = self.claim
        for difference in sorted(edits, key=lambda d: -(d.claim.start if d.claim else 0)):
            assert difference.claim is not None and difference.passage is not None
            text = text[: difference.claim.start] + difference.passage.text + text[difference.claim.end:]
        return text

    def as_dict(self) -> dict[str, object]:
        """The alignment as JSON-ready data, with the corrected claim where one is proposed."""
        return {
            "passage": self.passage, "coverage": round(self.coverage, 4), "filled": round(self.filled, 4),
            "changing_threshold": self.threshold,
            "matches": [m.as_dict() for m in self.matches],
            "differences": [d.as_dict() for d in self.differences],
            "corrected_claim": self.corrected_claim(),
        }

"""The numbers the difference classifier reads for one difference, grouped in families.

- **kind**: what kind of difference (substitution, swap, polarity, modality, addition) and of span
  (number, name, word, negation, modal), and whether the claim's span stands elsewhere in the passage.
- **lexical**: the WordNet relation of the two spans (antonym, co-hyponym, hyponym, ...), and for
  numbers how far apart they are.
- **embedding**: the cosine of the two spans' static vectors.
- **position**: where the claim's span sits in the claim, and how firmly its slot is anchored by matches
  on either side. (How much of the claim the passage matches is the judge's guard, not a feature: it
  says whether the sentence is about the claim, not whether one difference changes it.)
- **entailment**: the entailment model's reading of the passage against the whole claim.
- **entailment_by_kind**: the same reading, once per kind of difference and of span, so that the
  classifier can learn where to trust it: the model reads overlap, so its certainty says little
  about a changed name or number and more about whether an addition matters.
- **cross**: the kind of difference and the kind of span, each crossed with the relation (a cohyponym
  in a substitution of words is not an antonym in one of names).

Families can be switched off (`FAMILIES`) to measure what each adds (`training/train_difference.py`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from veracity.offline.difference.alignment import Alignment, Difference
from veracity.offline.difference.tokens import tokenize

_KINDS = ("substitution", "swap", "polarity", "modality", "addition")
_SPAN_KINDS = ("number", "name", "word", "negation", "modal")
_READ_SPAN_KINDS = ("number", "name", "word")
"""The span kinds the entailment reading is kept for, once each (a negation or a modal is a polarity or a
modality difference, kept there)."""
FAMILIES: dict[str, tuple[str, ...]] = {
    "kind": (*_KINDS, *(f"span_{kind}" for kind in _SPAN_KINDS), "displaced", "beside_match"),
    "lexical": ("rel_antonym", "rel_cohyponym", "rel_hyponym", "rel_hypernym", "rel_close", "rel_none",
                "rel_paraphrase", "number_gap"),
    "embedding": ("cosine",),
    "position": ("claim_position", "anchored"),
    "entailment": ("p_supported", "p_refuted"),
    "entailment_by_kind": tuple(f"{side}|{kind}" for side in ("p_supported", "p_refuted")
                                for kind in (*_KINDS, *(f"span_{kind}" for kind in _READ_SPAN_KINDS))),
}
"""Every feature, by family, in the order the classifier's weights are stored."""
_RELATIONS = ("antonym", "cohyponym", "hyponym", "hypernym", "close", "none", "paraphrase", "number", "swap", "claim",
              "passage", "modal")
FAMILIES["cross"] = tuple(f"{kind}|{relation}" for kind in (*_KINDS, *_SPAN_KINDS) for relation in _RELATIONS)
"""The kind of difference and of span, each crossed with the relation: a lookup table a linear model can read."""

FEATURES: tuple[str, ...] = tuple(name for names in FAMILIES.values() for name in names)
"""All features in order."""

_CLOSE = frozenset({"same", "synonym", "derived", "equal"})


def difference_features(difference: Difference, alignment: Alignment, cosine: float,
                        entailment: tuple[float, float] | None) -> dict[str, float]:
    """The `FEATURES` of one difference in its alignment.

    `cosine` is the static-vector cosine of the two spans (0.0 when one side is empty); `entailment`
    is (P(supported), P(refuted)) of the passage against the claim, when the model read it.
    """
    values = dict.fromkeys(FEATURES, 0.0)
    values[difference.kind] = 1.0
    values[f"span_{difference.span_kind}"] = 1.0
    values["displaced"] = float(difference.displaced)
    values["beside_match"] = float(difference.beside_match)
    values["anchored"] = difference.anchored
    relation = difference.relation
    if relation in ("antonym", "cohyponym", "hyponym", "hypernym", "paraphrase"):
        values[f"rel_{relation}"] = 1.0
    elif relation in _CLOSE:
        values["rel_close"] = 1.0
    elif relation == "none":
        values["rel_none"] = 1.0
    if difference.span_kind == "number" and difference.claim and difference.passage:
        values["number_gap"] = _number_gap(difference.claim.text, difference.passage.text)
    bucket = "close" if relation in _CLOSE else relation
    for key in (f"{difference.kind}|{bucket}", f"{difference.span_kind}|{bucket}"):
        if key in values:
            values[key] = 1.0
    values["cosine"] = cosine
    if difference.claim is not None and alignment.claim:
        values["claim_position"] = difference.claim.start / len(alignment.claim)
    if entailment is not None:
        values["p_supported"], values["p_refuted"] = entailment
        for side, p in zip(("p_supported", "p_refuted"), entailment, strict=True):
            for kind in (difference.kind, f"span_{difference.span_kind}"):
                if f"{side}|{kind}" in values:
                    values[f"{side}|{kind}"] = p
    return values


def _number_gap(claim: str, passage: str) -> float:
    """|log10| of the ratio of two amounts (capped at 2); 0.0 when either does not read as a number."""
    a, b = _amount(claim), _amount(passage)
    if a is None or b is None or a <= 0 or b <= 0:
        return 0.0
    return min(abs(math.log10(a / b)), 2.0)


def _amount(text: str) -> float | None:
    """The value of the first number in `text`, its unit applied."""
    return next((t.value for t in tokenize(text) if t.kind == "number"), None)


def vector(values: dict[str, float], families: Iterable[str] | None = None) -> list[float]:
    """The features in `FEATURES` order; those of families not in `families` are zero."""
    kept = set(FAMILIES) if families is None else set(families)
    off = {name for family, names in FAMILIES.items() if family not in kept for name in names}
    return [0.0 if name in off else values[name] for name in FEATURES]

"""The signals of one offline judgement, as the numbers the calibrator reads.

Every feature is computed from what the judge already has: the entailment probabilities of the
scored passages, their lexical signals, and which evidence items are about the claim's subject.
For a supported or refuted judgement the features describe the passage that decided, read for
that label ("for" is P(supported) of a supported verdict, P(refuted) of a refuted one); for an
unverifiable one, the passage that reads strongest for the side its passages lean to.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from veracity.contracts import Label
from veracity.offline.judge.decision import Candidate
from veracity.offline.judge.entities import names_entity
from veracity.offline.judge.judgement import Judgement
from veracity.offline.judge.numbers import extract_quantities, quantities_agree
from veracity.offline.judge.relevance import claim_subject, fold_accents
from veracity.offline.judge.words import content_stems
from veracity.offline.model.entailment import Probabilities

FEATURES: tuple[str, ...] = (
    "p_for", "p_against", "p_neutral", "margin", "other_for", "agreeing", "against_anywhere", "window",
    "similarity", "coverage", "missing_words", "few_missing", "unmentioned", "coverage_x_for", "entity_coverage",
    "claim_has_number", "numbers_agree", "subject_named", "passage_names_subject", "override", "override_number",
    "override_negation", "override_entity", "set_aside", "hearsay", "hedged", "claim_words", "off_topic",
)
"""The calibrator's inputs, in the order its weights are stored.

Signals that describe the evidence's packaging rather than the judgement are left out: whether
items carry titles, how many items and passages there were. In the calibration data they mostly
tell one dataset from another (only Climate-FEVER has titled, five-item evidence), and a check's
knowledge base or web results would inherit that dataset's rate of being right."""

MISSING_CAP = 6
"""Claim words missing from the passage (or from all the evidence) are counted up to this many."""
AGREEING = 0.5
"""P(label) at or above which another sentence counts as agreeing with the verdict."""
_CLIP = 1e-4


def logit(probability: float) -> float:
    """The log-odds of a probability, clipped away from 0 and 1."""
    p = min(max(probability, _CLIP), 1 - _CLIP)
    return math.log(p / (1 - p))


def read_for(judgement: Judgement) -> Label:
    """The label the features are read for: the judgement's own when decisive, else the side its passages lean to."""
    if judgement.decision.label != "unverifiable":
        return judgement.decision.label
    scored = [c for c in judgement.candidates if c.entailment is not None]
    if not scored:
        return "unverifiable"
    top_support = max(c.entailment.supported for c in scored if c.entailment is not None)
    top_refute = max(c.entailment.refuted for c in scored if c.entailment is not None)
    return "supported" if top_support >= top_refute else "refuted"


def _for(probabilities: Probabilities, label: Label) -> float:
    return probabilities.refuted if label == "refuted" else probabilities.supported


def _against(probabilities: Probabilities, label: Label) -> float:
    return probabilities.supported if label == "refuted" else probabilities.refuted


def _reference(judgement: Judgement, scored: Sequence[Candidate], label: Label) -> Candidate | None:
    """The passage the features describe: the decisive one, else the strongest for `label`."""
    if judgement.decision.candidate is not None and judgement.decision.candidate.entailment is not None:
        return judgement.decision.candidate
    if not scored:
        return None
    return max(scored, key=lambda c: _for(c.entailment, label) if c.entailment is not None else 0.0)


def _numbers_agree(claim: str, passage: str) -> float:
    """1.0 when every number of the claim has an agreeing number in the passage (0.0 when one has none)."""
    wanted = extract_quantities(claim)
    found = extract_quantities(passage)
    return float(all(any(quantities_agree(q, other) for other in found) for q in wanted))


_HEDGE = re.compile(
    r"\b(may|might|could|possibl[ey]|perhaps|likely|unlikely|suggests?|suggested|appears?|seems?|potential(?:ly)?|"
    r"feasible|probabl[ey]|uncertain)\b", re.IGNORECASE)


def _hedges(text: str) -> set[str]:
    """The hedging words of a text ("may", "suggests", "potentially"), lower-cased."""
    return {word.lower() for word in _HEDGE.findall(text)}


def judgement_features(judgement: Judgement) -> dict[str, float]:
    """The `FEATURES` of one judgement (see the module docstring for what they describe)."""
    values = dict.fromkeys(FEATURES, 0.0)
    claim = judgement.claim
    subject = claim_subject(claim)
    values["subject_named"] = float(subject.name is not None)
    values["claim_words"] = math.log1p(len(set(content_stems(claim))))
    values["claim_has_number"] = float(bool(extract_quantities(claim)))
    values["off_topic"] = float(judgement.off_topic)
    scored = [c for c in judgement.candidates if c.entailment is not None]
    label = read_for(judgement)
    reference = _reference(judgement, scored, label)
    if reference is None or reference.entailment is None:
        return values
    p = reference.entailment
    values["p_for"], values["p_against"], values["p_neutral"] = _for(p, label), _against(p, label), p.unverifiable
    values["margin"] = logit(values["p_for"]) - logit(values["p_against"])
    others = [c for c in scored if not (c.contains(reference) or reference.contains(c))]
    values["other_for"] = max((_for(c.entailment, label) for c in others if c.entailment), default=0.0)
    values["agreeing"] = math.log1p(sum(
        1 for c in scored if c.sentences == 1 and c.entailment is not None and _for(c.entailment, label) >= AGREEING))
    values["against_anywhere"] = max(_against(c.entailment, label) for c in scored if c.entailment is not None)
    values["window"] = float(reference.sentences > 1)
    values["similarity"] = reference.similarity
    values["coverage"] = reference.signals.coverage
    wanted = set(content_stems(claim))
    missing = len(wanted - set(content_stems(reference.text)))
    values["missing_words"] = float(min(missing, MISSING_CAP))
    values["few_missing"] = float(bool(wanted) and missing <= 1)
    mentioned = {stem for item in judgement.evidence for stem in content_stems(f"{item.title}\n{item.text}")}
    values["unmentioned"] = float(min(sum(1 for word in wanted if word not in mentioned and not word[:1].isdigit()),
                                      MISSING_CAP))
    values["coverage_x_for"] = reference.signals.coverage * values["p_for"]
    values["entity_coverage"] = reference.signals.entity_coverage
    values["numbers_agree"] = _numbers_agree(claim, reference.text) if values["claim_has_number"] else 0.0
    values["hearsay"] = float(reference.signals.hearsay is not None)
    values["hedged"] = float(bool(_hedges(reference.text) - _hedges(claim)))
    if subject.name is not None:
        values["passage_names_subject"] = float(names_entity(subject.name, fold_accents(reference.text)))
    basis = judgement.decision.basis
    values["override"] = float(basis in ("number", "negation", "entity"))
    values["override_number"] = float(basis == "number")
    values["override_negation"] = float(basis == "negation")
    values["override_entity"] = float(basis == "entity")
    values["set_aside"] = float(basis == "set_aside")
    return values

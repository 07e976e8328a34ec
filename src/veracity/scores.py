"""Reliability scores: heuristics that summarise how well the evidence backs the claims.

They are not truth: similarity measures topical closeness, and a refuted claim counts
against coverage exactly like an unverifiable one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from veracity.contracts import Claim, Evidence, RiskLevel, Verdict
from veracity.offline.sentences import split_sentences

if TYPE_CHECKING:
    from veracity.offline.model.embedder import Embedder

MAX_SENTENCES_PER_CLAIM = 300
"""Evidence sentences scored per claim, at most (keeps long web pages cheap)."""


@dataclass(frozen=True)
class Reliability:
    """The report-level scores."""

    evidence_coverage: float | None
    average_similarity: float | None
    reliability_score: float | None
    hallucination_risk: RiskLevel | None
    unsupported_claims: list[str]


def risk_level(score: float) -> RiskLevel:
    """LOW at 0.80 and above, MEDIUM from 0.60, HIGH below."""
    if score >= 0.80:
        return "LOW"
    return "MEDIUM" if score >= 0.60 else "HIGH"


def support_scores(
    claims: list[Claim], evidence: dict[str, list[Evidence]], embedder: Embedder
) -> dict[str, float | None]:
    """Per claim, the max cosine of the claim against any sentence of its evidence (None: no evidence)."""
    sentences: dict[str, list[str]] = {}
    for claim in claims:
        texts = [s.text for item in evidence.get(claim.id, []) for s in split_sentences(item.text)]
        sentences[claim.id] = texts[:MAX_SENTENCES_PER_CLAIM]
    if not any(sentences.values()):
        return {claim.id: None for claim in claims}
    everything = [claim.text for claim in claims] + [t for claim in claims for t in sentences[claim.id]]
    vectors = embedder.embed(everything)
    claim_vectors, offset = vectors[: len(claims)], len(claims)
    scores: dict[str, float | None] = {}
    for index, claim in enumerate(claims):
        count = len(sentences[claim.id])
        if count == 0:
            scores[claim.id] = None
            continue
        block = vectors[offset: offset + count]
        offset += count
        scores[claim.id] = round(float(np.max(block @ claim_vectors[index])), 4)
    return scores


def reliability(claims: list[Claim], verdicts: list[Verdict], scores: dict[str, float | None]) -> Reliability:
    """Coverage, average similarity, the reliability score (0.6 x coverage + 0.4 x similarity) and risk."""
    if not claims:
        return Reliability(None, None, None, None, [])
    labels = {v.claim_id: v.label for v in verdicts}
    supported = sum(labels.get(c.id) == "supported" for c in claims)
    coverage = supported / len(claims)
    similarity = sum(max(scores.get(c.id) or 0.0, 0.0) for c in claims) / len(claims)
    score = 0.6 * coverage + 0.4 * similarity
    no_evidence = all(scores.get(c.id) is None for c in claims)
    return Reliability(
        evidence_coverage=round(coverage, 4),
        average_similarity=round(similarity, 4),
        reliability_score=round(score, 4),
        hallucination_risk="HIGH" if no_evidence else risk_level(score),
        unsupported_claims=[c.text for c in claims if labels.get(c.id) != "supported"],
    )

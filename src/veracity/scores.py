"""Reliability scores: heuristics that summarise how well the evidence backs the claims.

They are not truth: similarity measures topical closeness, and a refuted claim counts
against coverage exactly like an unverifiable one. Each claim's similarity (its support score)
comes from the run's `SupportScorer` (`veracity.protocols`; the shipped one is `veracity.offline.support`).
"""

from __future__ import annotations

from dataclasses import dataclass

from veracity.contracts import Claim, RiskLevel, Verdict


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

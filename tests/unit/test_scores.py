"""Reliability scores."""

from __future__ import annotations

import numpy as np
import pytest

from veracity.contracts import Claim, Evidence, Verdict
from veracity.offline.support import support_scores
from veracity.scores import reliability, risk_level


def claim(n: int, text: str) -> Claim:
    return Claim(id=f"c{n}", text=text, source=text, span=(0, len(text)))


class FixedEmbedder:
    """Maps each text to a fixed unit vector."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = {k: np.array(v, dtype=np.float32) / np.linalg.norm(v) for k, v in vectors.items()}

    def embed(self, texts):
        return np.stack([self.vectors[t] for t in texts])


def test_support_score_is_the_max_cosine_over_evidence_sentences() -> None:
    claims = [claim(1, "A."), claim(2, "B.")]
    evidence = {"c1": [Evidence(id="c1-e1", claim_id="c1", text="Near. Far.", backend="t")]}
    embedder = FixedEmbedder({"A.": [1, 0], "B.": [0, 1], "Near.": [0.8, 0.6], "Far.": [0, 1]})
    scores = support_scores(claims, evidence, embedder)
    assert scores == {"c1": pytest.approx(0.8), "c2": None}


@pytest.mark.parametrize(("confidence", "risk"), [(0.80, "LOW"), (0.79, "MEDIUM"), (0.60, "MEDIUM"), (0.59, "HIGH")])
def test_risk_bands(confidence: float, risk: str) -> None:
    assert risk_level(confidence) == risk


def test_report_scores_follow_the_formula() -> None:
    claims = [claim(1, "A."), claim(2, "B.")]
    verdicts = [Verdict(claim_id="c1", label="supported", reason="r"),
                Verdict(claim_id="c2", label="refuted", reason="r")]
    scored = reliability(claims, verdicts, {"c1": 0.9, "c2": 0.7})
    assert scored.evidence_coverage == 0.5
    assert scored.average_similarity == pytest.approx(0.8)
    assert scored.reliability_score == pytest.approx(0.6 * 0.5 + 0.4 * 0.8)
    assert scored.hallucination_risk == "MEDIUM"
    assert scored.unsupported_claims == ["B."]


def test_no_evidence_at_all_is_high_risk() -> None:
    claims = [claim(1, "A.")]
    scored = reliability(claims, [Verdict(claim_id="c1", label="unverifiable", reason="r")], {"c1": None})
    assert scored.hallucination_risk == "HIGH" and scored.reliability_score == 0.0


def test_no_claims_no_scores() -> None:
    scored = reliability([], [], {})
    assert scored.reliability_score is None and scored.hallucination_risk is None

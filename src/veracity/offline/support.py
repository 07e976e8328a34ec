"""Support scores: how close each claim's best evidence sentence is to it, by the local sentence embedder.

The report's `average_similarity` and `reliability_score` are made of them (`veracity.scores`).
"""

from __future__ import annotations

import numpy as np

from veracity.contracts import Claim, Evidence
from veracity.offline.model.embedder import Embedder
from veracity.sentences import split_sentences

MAX_SENTENCES_PER_CLAIM = 300
"""Evidence sentences scored per claim, at most (keeps long web pages cheap)."""


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

"""Pair the claims a check extracted with the claims a dataset row expects, by meaning."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veracity.offline.model.embedder import Embedder

DEFAULT_MATCH_THRESHOLD = 0.7
"""Least cosine similarity (local MiniLM embeddings) for an extracted claim to count as an expected one."""


@dataclass(frozen=True)
class ClaimPair:
    """One expected claim and the extracted claim matched to it; either side may be missing."""

    expected: int | None
    extracted: int | None
    similarity: float | None


def match_claims(
    expected: Sequence[str], extracted: Sequence[str], *, threshold: float = DEFAULT_MATCH_THRESHOLD,
    embedder: Embedder | None = None,
) -> list[ClaimPair]:
    """Match claims one-to-one, most similar pairs first, keeping pairs at or above `threshold`.

    Returns every matched pair, then every unmatched expected claim, then every unmatched
    extracted claim (indexes into the two lists). `embedder` defaults to the local one.
    """
    pairs: list[ClaimPair] = []
    if expected and extracted:
        if embedder is None:
            from veracity.offline.model.embedder import default_embedder

            embedder = default_embedder()
        vectors = embedder.embed([*expected, *extracted])
        similarity = vectors[: len(expected)] @ vectors[len(expected):].T
        ranked = sorted(
            ((float(similarity[i, j]), i, j) for i in range(len(expected)) for j in range(len(extracted))),
            key=lambda item: (-item[0], item[1], item[2]),
        )
        used_expected: set[int] = set()
        used_extracted: set[int] = set()
        for score, i, j in ranked:
            if score < threshold:
                break
            if i in used_expected or j in used_extracted:
                continue
            used_expected.add(i)
            used_extracted.add(j)
            pairs.append(ClaimPair(i, j, score))
    matched_expected = {p.expected for p in pairs}
    matched_extracted = {p.extracted for p in pairs}
    pairs += [ClaimPair(i, None, None) for i in range(len(expected)) if i not in matched_expected]
    pairs += [ClaimPair(None, j, None) for j in range(len(extracted)) if j not in matched_extracted]
    return pairs

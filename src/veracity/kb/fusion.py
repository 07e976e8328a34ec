"""Reciprocal-rank fusion: merge several rankings into one without comparing their scores."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

RRF_K = 60
"""The constant of Cormack et al. (2009); it damps the weight of the very first ranks."""

T = TypeVar("T", bound=Hashable)


def reciprocal_rank_fusion(rankings: Iterable[Sequence[T]], *, k: int = RRF_K) -> list[tuple[T, float]]:
    """Items with their fused score, sum over rankings of 1 / (k + rank), best first (rank counts from 1).

    Ties keep the order in which items were first seen.
    """
    scores: dict[T, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: pair[1], reverse=True)


def rerank(closest: Sequence[float], word_places: Sequence[int | None]) -> list[tuple[int, float]]:
    """Candidate indexes with their fused scores, best first: two orders of the same candidates fused.

    One order is by `closest` (each candidate's closest sentence to the query, higher first), the
    other by `word_places` (each one's place in the BM25 ranking, lower first; None, sharing no
    term with the query, after every placed one, in candidate order). Ties go to the closer
    sentence.
    """
    indexes = range(len(closest))
    by_sentence = sorted(indexes, key=lambda i: -closest[i])
    by_words = sorted(indexes, key=lambda i: (word_places[i] is None, word_places[i] or 0))
    return reciprocal_rank_fusion([by_sentence, by_words])

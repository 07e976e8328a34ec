"""`Shortlist`: a knowledge-base search between its first stage and its rerank.

A search runs in three parts (`KnowledgeBase.search`): the first stage picks the candidates and
reads their stored sentence vectors (`KnowledgeBase.shortlist`); the sentences of a chunk returned
for the first time have none yet and are embedded (`KnowledgeBase.embed_first_touch`, the slow
part on a new knowledge base); the candidates are then reranked (`KnowledgeBase.reranked`). The
`kb` evidence backend runs the middle part outside the search timeout (`veracity.kb.backend`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from veracity.kb.index import Candidate


@dataclass
class Shortlist:
    """The first stage's candidates for one query, and the sentence vectors known for them so far."""

    query_vector: NDArray[np.float32]
    """The query's MiniLM vector."""
    candidates: list[Candidate]
    """The chunks to rerank, in first-stage order."""
    lexical: list[int]
    """Chunk ids by BM25 score, best first (see `Ranking.lexical`)."""
    limit: int
    """How many hits the search returns."""
    wanted: list[str] = field(default_factory=list)
    """The distinct sentences of the candidates whose vectors the index does not hold (a current-format index)."""
    known: dict[str, NDArray[np.float32]] = field(default_factory=dict)
    """The vectors found for `wanted` so far: read from the sentence store, or computed."""

    @property
    def fresh(self) -> list[str]:
        """The wanted sentences with no vector yet: met for the first time, to be embedded."""
        return [text for text in self.wanted if text not in self.known]


def empty_shortlist(dimensions: int) -> Shortlist:
    """The shortlist of a search that finds nothing (no query, no chunks, a limit below 1)."""
    return Shortlist(query_vector=np.zeros(dimensions, dtype=np.float32), candidates=[], lexical=[], limit=0)

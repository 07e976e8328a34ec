"""Rank fusion: the first stage's fused ranking and the rerank of its best chunks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.kb_fixtures import AUSTRALIA, TOWER, write
from veracity.kb import KnowledgeBase
from veracity.kb.fusion import RRF_K, reciprocal_rank_fusion, rerank


def test_fusion_sums_reciprocal_ranks_and_keeps_first_seen_order_on_ties() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "a"]])
    assert [item for item, _ in fused] == ["a", "b", "c"]  # a and b tie; a was seen first
    assert dict(fused)["c"] == pytest.approx(1 / (RRF_K + 3))


def test_rerank_fuses_the_closest_sentence_with_the_words() -> None:
    # By sentence: 0, 1, 2, 3. By words: 1, 2, 3, then 0, which shares no term with the query.
    order = [index for index, _ in rerank([0.9, 0.8, 0.7, 0.1], [None, 0, 1, 2])]
    scores = {i: 1 / (RRF_K + 1 + [0, 1, 2, 3].index(i)) + 1 / (RRF_K + 1 + [1, 2, 3, 0].index(i)) for i in range(4)}
    assert order == sorted(range(4), key=lambda i: -scores[i])
    assert order[0] == 1  # second closest and the best by words beats the closest with no word in common


def test_unplaced_candidates_follow_the_placed_ones_in_candidate_order() -> None:
    # By sentence, all equally close: 0, 1, 2. By words: 2 (placed), then 0 and 1 in candidate order.
    assert [index for index, _ in rerank([0.5, 0.5, 0.5], [None, None, 0])] == [0, 2, 1]


def test_a_tie_goes_to_the_closer_sentence() -> None:
    assert [index for index, _ in rerank([0.2, 0.9], [0, 1])] == [1, 0]


def test_the_first_stage_hands_its_word_ranking_to_the_rerank(kb: KnowledgeBase, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs / "australia.md", AUSTRALIA)
    write(docs / "tower.txt", TOWER)
    kb.ingest([docs])
    reader = kb.load()
    query = "Which city is the capital of Australia?"
    ranking = reader.rank(query, kb.embedder.embed([query])[0], 5)
    titles = {candidate.chunk_id: candidate.hit.title for candidate in reader.candidates(ranking.fused)}
    assert len(titles) == 2  # both documents are candidates (dense search finds every chunk)
    assert [titles[chunk_id] for chunk_id in ranking.lexical] == ["Australia facts"]  # only it shares a term

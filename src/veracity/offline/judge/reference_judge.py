"""The first offline judge: local embeddings plus lexical signals, no model API.

The shipped offline judge is `veracity.offline.judge.entailment_judge.EntailmentJudge`; this one
stays as the reference it is measured against. Both extend `veracity.offline.judge.base.PassageJudge`
(relevance filter, memory of judgements, the answer's shape); this one scores its passages thus.
For one claim and its retrieved evidence items it

1. cuts every item into sentences (`split_sentences`) and two-sentence windows,
2. embeds the claim and all those passages in one `embed` call and scores them by cosine,
3. computes the lexical signals of `veracity.offline.judge.signals` on each passage,
4. hands the scored passages to a `Decider` (`HeuristicDecider` by default).

Cost bound: an evidence item with more than `MAX_SENTENCES_PER_ITEM` sentences is first cut
down to that many sentences by lexical overlap with the claim (ties keep document order), and
a window is only built where it joins claim words spread over two sentences, so a long web
page costs at most about 3 x `MAX_SENTENCES_PER_ITEM` embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from veracity.contracts import Evidence
from veracity.offline.judge.base import (
    JUDGEMENTS_REMEMBERED,
    MAX_SENTENCES_PER_ITEM,
    PassageJudge,
    most_overlapping,
    quotable_sentences,
    same_paragraph,
)
from veracity.offline.judge.decision import Candidate, Decider, HeuristicDecider
from veracity.offline.judge.signals import compute_signals
from veracity.offline.judge.words import content_stems

if TYPE_CHECKING:
    from veracity.offline.model.embedder import Embedder


def passages(claim: str, text: str, *, limit: int = MAX_SENTENCES_PER_ITEM) -> list[tuple[int, int, int]]:
    """The passages of `text` worth scoring for `claim`, as (start, end, sentence count).

    * Single sentences: all of them, or when there are more than `limit`, the `limit` ones
      sharing most content words with the claim (ties keep document order).
    * Windows of two adjacent sentences (same paragraph, at least one of them kept), only when
      together they contain more of the claim's content words than either alone: a window
      exists to join a fact split over two sentences ("The Opera House ... It cost ...").

    Passages too short to quote are left out.
    """
    sentences = quotable_sentences(text)
    wanted = set(content_stems(claim))
    found = [wanted & set(content_stems(s.text)) for s in sentences]
    kept = set(most_overlapping(claim, sentences, limit))
    spans = [(sentences[i].start, sentences[i].end, 1) for i in sorted(kept)]
    for i in range(len(sentences) - 1):
        first, second = sentences[i], sentences[i + 1]
        joins_words = len(found[i] | found[i + 1]) > max(len(found[i]), len(found[i + 1]))
        if (i in kept or i + 1 in kept) and joins_words and same_paragraph(text, first, second):
            spans.append((first.start, second.end, 2))
    return spans


class OfflineJudge(PassageJudge):
    """Judges a claim against its evidence with local embeddings and a `Decider` (the heuristic one by default)."""

    def __init__(self, *, embedder: Embedder | None = None, decider: Decider | None = None,
                 remembered: int = JUDGEMENTS_REMEMBERED) -> None:
        """`embedder` defaults to `default_embedder()` (loaded on first use); `decider` to `HeuristicDecider()`.

        `remembered` as in `PassageJudge`: the last judgements kept in memory.
        """
        super().__init__(decider=decider or HeuristicDecider(), embedder=embedder, remembered=remembered)

    def candidates(self, claim: str, evidence: Sequence[Evidence]) -> list[Candidate]:
        """Every passage of every evidence item, scored against the claim (one embed call)."""
        spans = [(item, start, end, count) for item in evidence for start, end, count in passages(claim, item.text)]
        if not spans:
            return []
        texts = [item.text[start:end] for item, start, end, _ in spans]
        vectors = self.embedder.embed([claim, *texts])
        similarities = vectors[1:] @ vectors[0]
        return [
            Candidate(
                evidence_id=item.id, text=text, start=start, end=end, similarity=float(similarity),
                signals=compute_signals(claim, text, about=item.title), sentences=count, about=item.title,
            )
            for (item, start, end, count), text, similarity in zip(spans, texts, similarities, strict=True)
        ]

"""The first offline judge: local embeddings plus lexical signals, no model API.

The shipped offline judge is `veracity.offline.judge.entailment_judge.EntailmentJudge`, a subclass
that adds a trained entailment model; this one stays as the reference it is measured against.
For one claim and its retrieved evidence items it

1. cuts every item into sentences (`split_sentences`) and two-sentence windows,
2. embeds the claim and all those passages in one `embed` call and scores them by cosine,
3. computes the lexical signals of `veracity.offline.judge.signals` on each passage,
4. hands the scored passages to a `Decider` and turns its decision into a `JudgeOutput`-shaped
   dict whose quote is a verbatim slice of the cited evidence text.

Cost bound: an evidence item with more than `MAX_SENTENCES_PER_ITEM` sentences is first cut
down to that many sentences by lexical overlap with the claim (ties keep document order), and
a window is only built where it joins claim words spread over two sentences, so a long web
page costs at most about 3 x `MAX_SENTENCES_PER_ITEM` embeddings.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from veracity.citations import MIN_QUOTE_CHARS, normalize
from veracity.contracts import Evidence
from veracity.offline.judge.decision import Candidate, Decider, Decision, HeuristicDecider
from veracity.offline.judge.judgement import Judgement, to_judge_output
from veracity.offline.judge.relevance import claim_subject, off_topic_reason, on_topic
from veracity.offline.judge.signals import compute_signals
from veracity.offline.judge.words import content_stems
from veracity.offline.sentences import Sentence, split_sentences

if TYPE_CHECKING:
    from veracity.offline.model.embedder import Embedder

_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")

MAX_SENTENCES_PER_ITEM = 32
"""Sentences kept per evidence item, chosen by lexical coverage of the claim, before embedding."""


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


def quotable_sentences(text: str) -> list[Sentence]:
    """The sentences of `text` long enough to be quoted."""
    return [s for s in split_sentences(text) if len(normalize(s.text)) >= MIN_QUOTE_CHARS]


def most_overlapping(claim: str, sentences: Sequence[Sentence], limit: int) -> list[int]:
    """Indexes of at most `limit` sentences, those sharing most content words with `claim`, in order.

    Ties keep document order; with `limit` or fewer sentences, all of them.
    """
    if len(sentences) <= limit:
        return list(range(len(sentences)))
    wanted = set(content_stems(claim))
    overlap = [len(wanted & set(content_stems(s.text))) for s in sentences]
    return sorted(sorted(range(len(sentences)), key=lambda i: (-overlap[i], i))[:limit])


def same_paragraph(text: str, first: Sentence, second: Sentence) -> bool:
    """Sentences in the same paragraph (no blank line between them)."""
    return _BLANK_LINE.search(text, first.end, second.start) is None


JUDGEMENTS_REMEMBERED = 4096
"""Judgements an offline judge keeps in memory by default (claim and evidence as the key)."""


class OfflineJudge:
    """Judges a claim against its evidence with local embeddings and a `Decider` (the heuristic one by default)."""

    def __init__(self, *, embedder: Embedder | None = None, decider: Decider | None = None,
                 remembered: int = JUDGEMENTS_REMEMBERED) -> None:
        """`embedder` defaults to `default_embedder()` (loaded on first use); `decider` to `HeuristicDecider()`.

        The last `remembered` judgements are kept in memory: the judge is deterministic, so the
        same claim on the same evidence (a rerun, a batch repeating a text) is answered at once.
        """
        self._embedder = embedder
        self.decider: Decider = decider or HeuristicDecider()
        self._judgements: OrderedDict[tuple[object, ...], Judgement] = OrderedDict()
        self._remembered = remembered
        self._judgements_lock = threading.Lock()
        self.judgements_reused = 0
        """How many judgements came from memory (for tests and benchmarks)."""

    @property
    def embedder(self) -> Embedder:
        """The embedder in use (anything with `embed(texts) -> (n, d)` normalised vectors)."""
        if self._embedder is None:
            from veracity.offline.model.embedder import default_embedder

            self._embedder = default_embedder()
        return self._embedder

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

    def decide(self, claim: str, evidence: Sequence[Evidence]) -> Decision:
        """Score the passages and let the decider rule."""
        return self.decider.decide(claim, self.candidates(claim, evidence))

    def assess(self, claim: str, evidence: Sequence[Evidence]) -> Judgement:
        """The judge's raw finding on `claim`: the decision and the passages and items behind it.

        Only evidence about the claim's subject is read (see `relevance`): when no item is, the
        decision is unverifiable and names what the evidence lacks. The same claim on the same
        evidence is answered from memory (the last `remembered` judgements).
        """
        key = (claim, tuple((item.id, item.title, item.url, item.text) for item in evidence))
        with self._judgements_lock:
            remembered = self._judgements.get(key)
            if remembered is not None:
                self._judgements.move_to_end(key)
                self.judgements_reused += 1
                return remembered
        subject = claim_subject(claim)
        relevant = on_topic(subject, evidence, lambda item: self.closeness(claim, item))
        if not relevant:
            decision = Decision("unverifiable", off_topic_reason(subject, evidence), basis="off_topic")
            judgement = Judgement(claim, decision, (), tuple(evidence), ())
        else:
            candidates = self.candidates(claim, relevant)
            judgement = Judgement(claim, self.decider.decide(claim, candidates), tuple(candidates),
                                  tuple(evidence), tuple(relevant))
        with self._judgements_lock:
            self._judgements[key] = judgement
            while len(self._judgements) > self._remembered:
                self._judgements.popitem(last=False)
        return judgement

    def judge(self, claim: str, evidence: list[Evidence], *, feedback: str | None = None) -> dict[str, Any]:
        """Return a `JudgeOutput`-shaped dict: label, reason, evidence_id and a verbatim quote.

        The answer of `assess`: an off-topic claim is unverifiable and quotes nothing; otherwise an
        unverifiable verdict cites the closest passage (the one most similar to the claim), so a
        reader sees what the claim was compared with.
        `feedback` (from a revise round) is accepted for interface compatibility and ignored:
        the judge is deterministic, and its quotes are exact slices of the evidence, so a
        retry would return the same answer.
        """
        return self.assess(claim, evidence).output()

    def closeness(self, claim: str, item: Evidence) -> float:
        """The cosine of `claim` against the item's closest quotable sentence (0.0 for an item with none)."""
        sentences = quotable_sentences(item.text)
        texts = [sentences[i].text for i in most_overlapping(claim, sentences, MAX_SENTENCES_PER_ITEM)]
        if not texts:
            return 0.0
        vectors = self.embedder.embed([claim, *texts])
        return float((vectors[1:] @ vectors[0]).max())

    def output(self, claim: str, candidates: list[Candidate]) -> dict[str, Any]:
        """`judge`'s answer from passages already scored (by `candidates`).

        The decider's ruling; an unverifiable one cites the closest passage.
        """
        closest = max(candidates, key=lambda c: c.similarity, default=None)
        return to_judge_output(self.decider.decide(claim, candidates), closest=closest)

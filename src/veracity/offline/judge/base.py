"""What every offline judge shares: relevance filtering, a memory of judgements, and the answer's shape.

An offline judge scores passages of a claim's evidence (`PassageJudge.candidates`, each judge in
its own way) and lets a `Decider` rule on them. The base class

1. reads only the evidence about the claim's subject (`relevance`): when no item is, the claim
   is unverifiable and the reason names what the evidence lacks;
2. remembers its last judgements (the judges are deterministic, so the same claim on the same
   evidence is answered at once);
3. turns the decision into a `JudgeOutput`-shaped dict whose quote is a verbatim slice of the
   cited evidence text.

The shipped `entailment_judge.EntailmentJudge` and the `reference_judge.OfflineJudge` kept for
the benchmarks both extend it. The sentence helpers below are how both cut an evidence item
into passages worth scoring.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from veracity.bounded_memory import BoundedMemory
from veracity.citations import MIN_QUOTE_CHARS, normalize
from veracity.contracts import Evidence
from veracity.offline.judge.decision import Candidate, Decider, Decision
from veracity.offline.judge.judgement import Judgement, to_judge_output
from veracity.offline.judge.relevance import claim_subject, off_topic_reason, on_topic
from veracity.offline.judge.words import content_stems
from veracity.offline.sentences import Sentence, split_sentences

if TYPE_CHECKING:
    from veracity.offline.model.embedder import Embedder

_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")

MAX_SENTENCES_PER_ITEM = 32
"""Sentences kept per evidence item, chosen by lexical coverage of the claim, before embedding."""

JUDGEMENTS_REMEMBERED = 4096
"""Judgements an offline judge keeps in memory by default (claim and evidence as the key)."""


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


class PassageJudge(ABC):
    """An offline judge: scores passages of the evidence (`candidates`) and lets its `decider` rule."""

    def __init__(self, *, decider: Decider, embedder: Embedder | None = None,
                 remembered: int = JUDGEMENTS_REMEMBERED, reads_off_topic: bool = False) -> None:
        """`embedder` defaults to `default_embedder()` (loaded on first use).

        The last `remembered` judgements are kept in memory: the judge is deterministic, so the
        same claim on the same evidence (a rerun, a batch repeating a text) is answered at once.
        """
        self._embedder = embedder
        self.decider: Decider = decider
        self.reads_off_topic = reads_off_topic
        """Whether evidence items about another subject are read too (the relevance filter off)."""
        self._judgements: BoundedMemory[tuple[object, ...], Judgement] = BoundedMemory(remembered)

    @property
    def embedder(self) -> Embedder:
        """The embedder in use (anything with `embed(texts) -> (n, d)` normalised vectors)."""
        if self._embedder is None:
            from veracity.offline.model.embedder import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    @property
    def judgements_reused(self) -> int:
        """How many judgements came from memory (for tests and benchmarks)."""
        return self._judgements.hits

    @abstractmethod
    def candidates(self, claim: str, evidence: Sequence[Evidence]) -> list[Candidate]:
        """The passages of `evidence` this judge scores against `claim`, ready for its decider."""

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
        remembered = self._judgements.get(key)
        if remembered is not None:
            return remembered
        subject = claim_subject(claim)
        relevant = list(evidence) if self.reads_off_topic else on_topic(
            subject, evidence, lambda item: self.closeness(claim, item))
        if not relevant:
            decision = Decision("unverifiable", off_topic_reason(subject, evidence), basis="off_topic")
            judgement = Judgement(claim, decision, (), tuple(evidence), ())
        else:
            candidates = self.candidates(claim, relevant)
            judgement = Judgement(claim, self.decider.decide(claim, candidates), tuple(candidates),
                                  tuple(evidence), tuple(relevant))
        self._judgements.put(key, judgement)
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

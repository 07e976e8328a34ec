"""The shipped offline judge: a trained entailment cross-encoder over the claim's closest passages.

For one claim and its evidence items it

1. cuts every item into quotable sentences (at most `MAX_SENTENCES_PER_ITEM` per item, chosen
   by lexical overlap with the claim) and embeds them with the claim in one call;
2. keeps the `top_sentences` sentences most similar to the claim (near-copies count once), and
   builds the windows of 2 or 3 adjacent sentences (same item, same paragraph) around the
   closest `window_around` of them;
3. scores all those passages against the claim with the entailment model in one request (which
   the model runs together with the requests of the other claims being judged at the same time,
   and answers from memory for pairs it scored lately), and computes the lexical signals on each;
4. lets `EntailmentDecider` rule from the probabilities, with thresholds and settings read from
   the model's ``config.json`` (`JudgeSettings.from_config`), never written in code.

The lexical contradiction signals named in the config (number, negation, entity swap) stay as
overrides: a small entailment model reads "over 2,000 rooms" and "about 1,000 rooms" as close
paraphrases, so a passage it finds entailing, on which such a signal fires, refutes the claim
instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from veracity.contracts import Evidence
from veracity.offline.difference.reader import DifferenceReader
from veracity.offline.judge.base import (
    JUDGEMENTS_REMEMBERED,
    MAX_SENTENCES_PER_ITEM,
    PassageJudge,
    most_overlapping,
    quotable_sentences,
    same_paragraph,
)
from veracity.offline.judge.decision import Candidate, Decision
from veracity.offline.judge.difference_rule import DifferenceRule
from veracity.offline.judge.permission import permission_conflict
from veracity.offline.judge.relevance import same_subject_and_predicate, subject_phrase_stems
from veracity.offline.judge.signals import (
    CONTRADICTION_DETECTORS,
    Contradiction,
    Signals,
    compute_signals,
    signal_name,
)
from veracity.offline.judge.words import content_stems, lexical_coverage
from veracity.offline.model.embedder import Embedder
from veracity.offline.model.entailment import EntailmentModel, Probabilities, default_entailment_model, load_config
from veracity.offline.sentences import Sentence

OVERRIDE_SIGNALS = tuple(CONTRADICTION_DETECTORS)
"""Contradiction detectors a config may name in ``overrides``."""
RULES = ("relevance", "on_point", "hearsay", "permission", "narrower_negation", "differences")
"""The decision's rules a config may name in ``rules`` (each is described in `EntailmentDecider`); the
overrides are named apart, in ``overrides``."""
NEAR_COPY_SIMILARITY = 0.9
"""Cosine at or above which two evidence sentences count as copies of each other (one is scored)."""


@dataclass(frozen=True)
class JudgeSettings:
    """What the entailment judge scores and where it draws the lines; loaded from ``config.json``.

    `support` and `refute` are minimum probabilities (chosen on held-out calibration data, see the
    model card); with `contradiction_first`, a passage past `refute` refutes the claim even when
    another passage entails it more strongly; `overrides` names the signals that turn an
    entailing passage into a refutation.
    """

    support: float
    refute: float
    contradiction_first: bool
    top_sentences: int
    window_around: int
    window_sizes: tuple[int, ...]
    overrides: tuple[str, ...]
    support_must_dominate: bool
    """Only a passage read as more entailing than contradicting may support (see `EntailmentDecider`)."""
    rules: frozenset[str]
    """The `RULES` in force."""

    @classmethod
    def from_config(cls, config: dict[str, Any] | None = None) -> JudgeSettings:
        """Read the ``judge`` section of the model's config (the shipped one by default)."""
        judge = (config or load_config())["judge"]
        unknown = set(judge["overrides"]) - set(OVERRIDE_SIGNALS)
        if unknown:
            raise ValueError(f"unknown override signals {sorted(unknown)}; known: {sorted(OVERRIDE_SIGNALS)}")
        rules = frozenset(judge["rules"])
        if rules - set(RULES):
            raise ValueError(f"unknown rules {sorted(rules - set(RULES))}; known: {sorted(RULES)}")
        return cls(
            support=float(judge["support"]), refute=float(judge["refute"]),
            contradiction_first=bool(judge["contradiction_first"]),
            top_sentences=int(judge["top_sentences"]), window_around=int(judge["window_around"]),
            window_sizes=tuple(int(size) for size in judge["window_sizes"]), overrides=tuple(judge["overrides"]),
            support_must_dominate=bool(judge["support_must_dominate"]), rules=rules,
        )


@dataclass(frozen=True)
class EntailmentDecider:
    """Rules from the entailment probabilities of the scored candidates.

    With `support_must_dominate`, only a *credible* passage can support: one the model reads as more
    entailing than contradicting ("entails 0.48, contradicts 0.47" is a split reading, not support).
    A passage that only asks about the claim, reports it as someone's claim or supposes it
    (`hearsay`) is never credible. A passage is *on point* when it speaks of the claim's subject and predicate
    (`same_subject_and_predicate`, with the passage's document title saying what "It ..." is).

    0. A single sentence forbids outright what the claim permits, or permits what it forbids
       (`permission_conflict`, read by rule): refuted.
    1. The highest P(refuted) of an on-point passage reaches `refute` and, unless
       `contradiction_first`, is at least the highest credible P(supported): refuted. (The model
       also reads "X was an English poet" as contradicting "X was born in 1564".)
    2. The highest credible P(supported) reaches `support`: supported, unless
       a. a passage naming the claim's whole subject phrase negates what the claim says of it, while
          the entailing passage lacks part of that phrase ("Sale items cannot be returned" against
          "Sale items can be returned", entailed only by "Items may be returned"): refuted; or
       b. an override signal fires on a single sentence past `support`, or on the passage that
          decided. On an on-point passage it refutes the claim (the model read it as entailing, but
          it names another number of the same kind, negates the claim, or puts another name in the
          claim's place: "The capital of Australia is Canberra" against "Sydney is the capital of
          Australia", which the shipped model scores as entailed at 0.99); a negation counts only on
          a passage close to the claim's wording. On a passage about something else it makes the
          claim unverifiable: the model took that text for support.
    3. Otherwise: unverifiable, citing the passage closest to the claim, and saying so when the only
       passages that repeat it are hearsay or the only contradicting ones are off point.

    The quote is the passage that decided; among the passages past the threshold for the label
    the shortest (fewest sentences) is quoted, then the most probable. Whether the label is
    said at all is decided afterwards, by risk control (`veracity.offline.calibration`).
    """

    settings: JudgeSettings
    differences: DifferenceRule | None = None
    """With the rule ``differences``: the decision read against the claim's differences (`difference_rule`)."""

    def decide(self, claim: str, candidates: list[Candidate]) -> Decision:
        """Apply the rules above, then read the decision against the differences (with that rule)."""
        decision = self._decide(claim, candidates)
        if self.differences is None or decision.basis in ("no_evidence", "permission"):
            return decision
        return self.differences.apply(claim, candidates, decision)

    def _decide(self, claim: str, candidates: list[Candidate]) -> Decision:
        """The rules above; the reason gives the probabilities that decided."""
        scored = [c for c in candidates if c.entailment is not None]
        if not scored:
            return Decision("unverifiable", "No evidence text to judge the claim against.", basis="no_evidence")
        t = self.settings
        conflicting = _permission_conflict(claim, scored) if "permission" in t.rules else None
        if conflicting is not None:
            return conflicting
        credible = [
            c for c in scored
            if ("hearsay" not in t.rules or c.signals.hearsay is None)
            and (not t.support_must_dominate or _entailment(c).supported > _entailment(c).refuted)
        ]
        top_support = max((_entailment(c).supported for c in credible), default=0.0)
        # A passage refutes only when it speaks of the claim's subject and predicate: the model also
        # reads "X was an English poet" as contradicting "X was born in 1564".
        on_point = [c for c in scored if "on_point" not in t.rules or same_subject_and_predicate(
            claim, c.text, about=c.about, subject_may_differ=c.signals.entity is not None)]
        top_refute = max((_entailment(c).refuted for c in on_point), default=0.0)
        if top_refute >= t.refute and (t.contradiction_first or top_refute >= top_support):
            chosen = _decisive(on_point, lambda p: p.refuted, t.refute)
            return Decision(
                "refuted", "The evidence contradicts the claim.", chosen,
                basis="entailment",
            )
        if top_support >= t.support:
            entailing = _past(credible, lambda p: p.supported, t.support)
            forbidding = _narrower_negation(claim, entailing[0], scored) if "narrower_negation" in t.rules else None
            if forbidding is not None:
                return forbidding
            # Windows are checked only when one decides: their other sentences may negate or
            # number something else ("Returns are not accepted after that.").
            set_aside: list[Candidate] = []
            for candidate in (c for c in entailing if c.sentences == 1 or c is entailing[0]):
                signal = self._override(candidate.signals)
                if signal is None:
                    continue
                if "on_point" in t.rules and not same_subject_and_predicate(
                        claim, candidate.text, about=candidate.about,
                        subject_may_differ=signal is candidate.signals.entity):
                    set_aside.append(candidate)
                    continue
                if signal is candidate.signals.negation and not _negation_on_point(claim, candidate):
                    continue  # it negates a word of the passage's own, not what the claim says
                return Decision(
                    "refuted",
                    f"{signal.describe()} (the entailment model alone reads the passage as agreeing).",
                    candidate,
                    basis=signal_name(signal),
                )
            if set_aside:  # the model reads text about something else as support: weaker support is no safer
                return Decision(
                    "unverifiable",
                    "The passage that agrees with the claim speaks of another subject or predicate, so it decides "
                    "nothing.",
                    basis="set_aside",
                )
            chosen = entailing[0]
            return Decision("supported", "The evidence entails the claim.", chosen, basis="entailment")
        hearsay = [c for c in scored if "hearsay" in t.rules and c.signals.hearsay is not None
                   and _entailment(c).supported >= t.support
                   and _entailment(c).supported > _entailment(c).refuted]
        if hearsay:
            return Decision("unverifiable", _hearsay_reason(hearsay[0]), basis="hearsay")
        elsewhere = [c for c in scored if c not in on_point and _entailment(c).refuted >= t.refute]
        if elsewhere:
            return Decision(
                "unverifiable",
                "The passage that contradicts the claim speaks of another subject or attribute, so it decides "
                "nothing.",
                basis="set_aside",
            )
        return Decision(
            "unverifiable",
            "No passage entails or contradicts the claim clearly enough.",
            basis="unclear",
        )

    def _override(self, signals: Signals) -> Contradiction | None:
        for name in self.settings.overrides:
            value: Contradiction | None = getattr(signals, name)
            if value is not None and signals.contradiction is value:
                return value
        return None


NEGATION_CONTEXT = 0.6
"""A negation mismatch overrides the model only on a passage covering this share of the claim's other words
(with its document's title), or one naming the claim's whole subject phrase."""


def _negation_on_point(claim: str, candidate: Candidate) -> bool:
    """Whether a negation mismatch on this passage negates what the claim says, not a word near it.

    The passage must name the claim's whole subject phrase, or cover `NEGATION_CONTEXT` of the
    claim's words together with its document's title.
    """
    return _names_subject_phrase(claim, candidate) or lexical_coverage(
        claim, f"{candidate.about}\n{candidate.text}") >= NEGATION_CONTEXT


def _names_subject_phrase(claim: str, candidate: Candidate) -> bool:
    """Whether the passage holds every content word of the claim's subject phrase ("sale items")."""
    wanted = subject_phrase_stems(claim)
    return bool(wanted) and wanted <= set(content_stems(candidate.text))


def _narrower_negation(claim: str, supporting: Candidate, candidates: list[Candidate]) -> Decision | None:
    """A refutation by a passage about exactly the claim's subject that negates what the claim says of it.

    "Sale items can be returned" is entailed by "Items may be returned within 30 days", which is
    about items in general; "Sale items are final and cannot be returned" is about sale items and
    forbids what the claim permits. The narrower passage decides (and the reverse: a claim that
    forbids what the passage about its subject permits). Only when the supporting passage lacks
    part of the subject phrase.
    """
    if _names_subject_phrase(claim, supporting):
        return None
    for candidate in candidates:
        negation = candidate.signals.negation
        if negation is not None and candidate.sentences == 1 and _names_subject_phrase(claim, candidate):
            return Decision(
                "refuted",
                f"{negation.describe()}: the passage about exactly what the claim speaks of says the opposite "
                "(a broader passage agrees with it).",
                candidate, basis="negation",
            )
    return None


def _permission_conflict(claim: str, candidates: list[Candidate]) -> Decision | None:
    """A refutation by a sentence that forbids outright what the claim permits, or permits what it forbids.

    Read by rule (`permission_conflict`), not by the model, which scores "Sale items can be returned"
    against "Sale items cannot be returned" as split; a sentence that only asks or reports is skipped.
    """
    for candidate in sorted(candidates, key=lambda c: (c.evidence_id, c.start)):
        if candidate.sentences != 1 or candidate.signals.hearsay is not None:
            continue
        conflict = permission_conflict(claim, candidate.text)
        if conflict is not None:
            return Decision("refuted", f"{conflict.describe()}.", candidate, basis="permission")
    return None


def _hearsay_reason(candidate: Candidate) -> str:
    """Why a passage that repeats the claim does not support it."""
    how = {"question": "only asks whether it is so", "report": "only reports it as someone's claim",
           "condition": "only supposes it"}[candidate.signals.hearsay or "report"]
    return f"The passage that repeats the claim {how}; it does not state it, so it supports nothing."


ProbabilityOf = Callable[[Probabilities], float]
"""Picks one label's probability, e.g. ``lambda p: p.supported``."""


def _entailment(candidate: Candidate) -> Probabilities:
    """The passage's probabilities (the decider reads scored passages only)."""
    if candidate.entailment is None:
        raise ValueError(f"the passage of {candidate.evidence_id} at {candidate.start} was not scored")
    return candidate.entailment


def _past(candidates: list[Candidate], probability: ProbabilityOf, threshold: float) -> list[Candidate]:
    """The passages past `threshold`, shortest first, then the most probable."""
    passing = [c for c in candidates if probability(_entailment(c)) >= threshold]
    return sorted(passing, key=lambda c: (c.sentences, -probability(_entailment(c)), c.evidence_id, c.start))


def _decisive(candidates: list[Candidate], probability: ProbabilityOf, threshold: float) -> Candidate:
    """The shortest passage past `threshold`, then the most probable one."""
    return _past(candidates, probability, threshold)[0]


@dataclass(frozen=True)
class _Item:
    evidence: Evidence
    sentences: list[Sentence]
    kept: list[int]


class EntailmentJudge(PassageJudge):
    """The offline judge with the bundled entailment model; `judge()` as in `PassageJudge`."""

    def __init__(
        self, *, embedder: Embedder | None = None, model: EntailmentModel | None = None,
        settings: JudgeSettings | None = None, remembered: int = JUDGEMENTS_REMEMBERED,
    ) -> None:
        """Set up the judge (nothing is loaded yet).

        `model` defaults to `default_entailment_model()` (loaded on first use); `settings` to the
        ``judge`` section of that model's config; `remembered` as in `PassageJudge`.
        """
        self._model = model
        config = getattr(model, "config", None) if model is not None else None
        self.settings = settings or JudgeSettings.from_config(config)
        differences = DifferenceRule(DifferenceReader()) if "differences" in self.settings.rules else None
        super().__init__(decider=EntailmentDecider(self.settings, differences), embedder=embedder,
                         remembered=remembered, reads_off_topic="relevance" not in self.settings.rules)

    @property
    def model(self) -> EntailmentModel:
        """The entailment model (anything with `probabilities(premises, hypothesis)`)."""
        if self._model is None:
            self._model = default_entailment_model()
        return self._model

    def candidates(self, claim: str, evidence: Sequence[Evidence]) -> list[Candidate]:
        """The claim's closest sentences and the windows around them, each with its probabilities."""
        settings = self.settings
        items: list[_Item] = []
        for evidence_item in evidence:
            sentences = quotable_sentences(evidence_item.text)
            items.append(_Item(evidence_item, sentences, most_overlapping(claim, sentences, MAX_SENTENCES_PER_ITEM)))
        pool = [(n, i) for n, item in enumerate(items) for i in item.kept]
        if not pool:
            return []
        vectors = self.embedder.embed([claim, *(items[n].sentences[i].text for n, i in pool)])
        similarity = dict(zip(pool, (float(s) for s in vectors[1:] @ vectors[0]), strict=True))
        closest = _closest_distinct(pool, similarity, dict(zip(pool, vectors[1:], strict=True)), settings.top_sentences)

        spans: dict[tuple[int, int, int], float] = {}
        for key in closest:
            spans[(key[0], key[1], key[1])] = similarity[key]
        for n, i in closest[: settings.window_around]:
            for first, last in _windows(items[n], i, settings.window_sizes):
                # A window is as close to the claim as its closest scored sentence.
                members = [similarity.get((n, j), 0.0) for j in range(first, last + 1)]
                spans.setdefault((n, first, last), max(members))

        candidates = []
        for (n, first, last), closeness in spans.items():
            item = items[n]
            start, end = item.sentences[first].start, item.sentences[last].end
            text = item.evidence.text[start:end]
            candidates.append(Candidate(
                evidence_id=item.evidence.id, text=text, start=start, end=end, similarity=closeness,
                signals=compute_signals(claim, text, about=item.evidence.title), sentences=last - first + 1,
                about=item.evidence.title, context=item.evidence.text,
            ))
        probabilities = self.model.probabilities([c.text for c in candidates], claim)
        return [replace(c, entailment=p) for c, p in zip(candidates, probabilities, strict=True)]


SentenceKey = tuple[int, int]
"""(evidence item index, sentence index) of one sentence in the pool."""


def _closest_distinct(
    pool: list[SentenceKey], similarity: dict[SentenceKey, float], vectors: dict[SentenceKey, NDArray[np.float32]],
    count: int,
) -> list[SentenceKey]:
    """The `count` sentences closest to the claim, skipping near-copies of one already taken.

    Knowledge-base chunks often repeat a sentence (a note and a user's document both saying
    "Sydney is the capital of New South Wales"); scoring it twice would crowd out the sentence
    that decides ("Canberra is the capital city of Australia").
    """
    chosen: list[SentenceKey] = []
    for key in sorted(pool, key=lambda key: (-similarity[key], key)):
        if len(chosen) == count:
            break
        if all(float(vectors[key] @ vectors[other]) < NEAR_COPY_SIMILARITY for other in chosen):
            chosen.append(key)
    return chosen


def _windows(item: _Item, index: int, sizes: tuple[int, ...]) -> list[tuple[int, int]]:
    """(first, last) sentence indexes of every window of the given sizes that contains `index`."""
    found = []
    for size in sizes:
        for first in range(index - size + 1, index + 1):
            last = first + size - 1
            if first < 0 or last >= len(item.sentences):
                continue
            run = item.sentences[first:last + 1]
            if all(same_paragraph(item.evidence.text, a, b) for a, b in zip(run, run[1:], strict=False)):
                found.append((first, last))
    return found

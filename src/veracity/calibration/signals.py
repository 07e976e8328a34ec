"""What a check knows about a chat model's verdict without asking the model again, as numbers.

A chat model gives a label, an evidence id and a quote. Beside it the run has the claim, the
evidence and the offline judge, so each verdict is described by:

* the offline entailment model's reading of the quote against the claim, for the verdict's label
  (``p_for``, ``p_against``, ``p_neutral``, their log-odds ``margin``) and whether a verified quote
  was given at all (``quoted``);
* the offline judge's own reading of all the evidence: whether it reaches the same label
  (``offline_agrees``) or the opposite one (``offline_opposes``), its strongest passage for and against
  the label, and how many evidence items hold a passage it reads for or against the label
  (``agreeing_sources``, ``opposing_sources``);
* whether the cited item is about something else than the claim's subject (``off_topic``);
* the claim's size (``claim_words``);
* where the endpoint returns token log-probabilities, their mean over the answer (``answer_logprob``,
  with ``has_logprob``; both 0 where it does not).

An unverifiable verdict is described for the side its evidence leans to, as the offline judge's are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from veracity.citations import quote_problem
from veracity.contracts import Evidence, Label
from veracity.offline.calibration.features import logit, read_for
from veracity.offline.judge.entailment_judge import EntailmentJudge
from veracity.offline.judge.relevance import citation_off_topic
from veracity.offline.judge.words import content_stems
from veracity.offline.model.entailment import Probabilities

SIGNALS_VERSION = "chat-signals-2"
"""Changes whenever what `SIGNALS` mean changes: a calibration fitted on other signals no longer applies."""

SIGNALS: tuple[str, ...] = (
    "quoted", "p_for", "p_against", "p_neutral", "margin", "offline_agrees", "offline_opposes", "offline_for",
    "offline_against", "agreeing_sources", "opposing_sources", "off_topic", "claim_words", "answer_logprob",
    "has_logprob",
)
"""The signals of a chat-model verdict, in the order a calibration stores its weights."""

LOGPROB_FLOOR = -20.0
"""Mean token log-probabilities below this count as this (a stray token must not dominate the sum)."""
AGREEING = 0.5
"""P(label) at or above which a passage counts as reading for (or against) the label."""


def _for(probabilities: Probabilities, side: Label) -> float:
    return probabilities.refuted if side == "refuted" else probabilities.supported


def _against(probabilities: Probabilities, side: Label) -> float:
    return probabilities.supported if side == "refuted" else probabilities.refuted


def verdict_signals(claim: str, evidence: Sequence[Evidence], label: Label, evidence_id: str | None,
                    quote: str | None, judge: EntailmentJudge, logprob: float | None = None) -> dict[str, float]:
    """The `SIGNALS` of a verdict `label` on `claim` quoting `quote` from item `evidence_id` (module docstring)."""
    values = dict.fromkeys(SIGNALS, 0.0)
    values["claim_words"] = math.log1p(len(set(content_stems(claim))))
    if logprob is not None:
        values["answer_logprob"], values["has_logprob"] = max(logprob, LOGPROB_FLOOR), 1.0
    judgement = judge.assess(claim, list(evidence))
    side: Label = label if label != "unverifiable" else read_for(judgement)
    if side == "unverifiable":  # nothing scored: read for support, as the offline judge's own features do
        side = "supported"
    opposite = "refuted" if label == "supported" else "supported"
    values["offline_agrees"] = float(judgement.decision.label == label)
    values["offline_opposes"] = float(label != "unverifiable" and judgement.decision.label == opposite)
    scored = [c for c in judgement.candidates if c.entailment is not None]
    values["offline_for"] = max((_for(c.entailment, side) for c in scored if c.entailment), default=0.0)
    values["offline_against"] = max((_against(c.entailment, side) for c in scored if c.entailment), default=0.0)
    values["agreeing_sources"] = math.log1p(len(
        {c.evidence_id for c in scored if c.entailment and _for(c.entailment, side) >= AGREEING}))
    values["opposing_sources"] = math.log1p(len(
        {c.evidence_id for c in scored if c.entailment and _against(c.entailment, side) >= AGREEING}))
    cited = next((item for item in evidence if item.id == (evidence_id or "").strip()), None)
    if cited is not None:
        values["off_topic"] = float(citation_off_topic(claim, cited) is not None)
    else:
        values["off_topic"] = float(judgement.off_topic)
    if cited is not None and quote and quote_problem(quote, cited.text) is None:
        reading = judge.model.probabilities([quote], claim)[0]
        values["quoted"] = 1.0
        values["p_for"], values["p_against"] = _for(reading, side), _against(reading, side)
        values["p_neutral"] = reading.unverifiable
        values["margin"] = logit(values["p_for"]) - logit(values["p_against"])
    return values

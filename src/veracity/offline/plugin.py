"""The offline parts as the core's plug-ins (`veracity.protocols`): claim splitter, judge and support scorer.

The judge's own checks stay with it: its calibration and risk control (`veracity.offline.calibration`)
rule each of its answers, and its relevance rule (`veracity.offline.judge.relevance`) is the standard
its citations are held to. A chat model's verdicts go through neither.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from veracity.contracts import Claim, Evidence, SkipReason
from veracity.offline.calibration.ruling import MeasuredCalibration, RiskRule, Ruling
from veracity.offline.extract import extract_claims_offline, skip_reason
from veracity.offline.judge.entailment_judge import EntailmentJudge
from veracity.offline.judge.relevance import citation_off_topic
from veracity.offline.judge.version import offline_judge_version
from veracity.offline.model.embedder import default_embedder
from veracity.offline.support import support_scores


class OfflineSplitter:
    """The deterministic claim splitter, and its rule of check-worthiness."""

    def split(self, text: str, *, source_mode: bool) -> dict[str, Any]:
        """The claims and skipped statements of `text`, as the extraction model would list them."""
        return extract_claims_offline(text, source_mode=source_mode)

    def skip_reason(self, statement: str, *, source_mode: bool) -> SkipReason | None:
        """Why `statement` is not check-worthy, or None (`veracity.offline.extract.skip_reason`)."""
        return skip_reason(statement, source_mode=source_mode)


class OfflineJudge:
    """The shipped offline judge: the bundled entailment model, its calibration and its relevance rule.

    The judge (and its model) is created on first use, once per process (`shipped_judge`).
    `measured`: a calibration `veracity calibrate` measured for this judge, which rules its verdicts
    instead of the shipped one outside source mode (`measured_by` gives the judge a run's file).
    """

    def __init__(self, measured: MeasuredCalibration | None = None) -> None:
        self.measured = measured

    def measured_by(self, calibration: MeasuredCalibration) -> OfflineJudge:
        """This judge, ruling by `calibration` (read once, by the run that uses it)."""
        return OfflineJudge(calibration)

    @property
    def judge(self) -> EntailmentJudge:
        """The entailment judge."""
        return shipped_judge()

    def rule(self, claim: str, evidence: list[Evidence], *, min_precision: float, source_mode: bool) -> Ruling:
        """The judge's finding on `claim`, ruled at `min_precision` by its calibration.

        That is the measured one when the judge has it, outside source mode; else the shipped one
        (source mode's own in source mode).
        """
        judgement = self.judge.assess(claim, evidence)
        if self.measured is not None and not source_mode:
            return RiskRule.measured(min_precision, self.measured).rule(judgement)
        return RiskRule.shipped(min_precision, source=source_mode).rule(judgement)

    def citation_problem(self, claim: str, cited: Evidence) -> str | None:
        """Why `cited` is about something else than `claim` (`citation_off_topic`), or None."""
        return citation_off_topic(claim, cited)

    def version(self) -> str:
        """The offline judge's version (`offline_judge_version`)."""
        return offline_judge_version()

    def load(self) -> object:
        """Load the entailment model now (a warm-up); return it."""
        return self.judge.model


class EmbeddingSupport:
    """Support scores from the local sentence embedder (`veracity.offline.support`)."""

    def support_scores(self, claims: list[Claim], evidence: dict[str, list[Evidence]]) -> dict[str, float | None]:
        """Per claim, the best cosine of the claim against its evidence sentences (None: no evidence)."""
        return support_scores(claims, evidence, default_embedder())


_creating_judge = threading.Lock()
"""A run's steps and its warm-up (`veracity.run.warmup`) ask for the judge from different threads."""


def shipped_judge() -> EntailmentJudge:
    """The process-wide offline judge, created once."""
    with _creating_judge:
        return _shipped_judge()


@functools.cache
def _shipped_judge() -> EntailmentJudge:
    return EntailmentJudge()

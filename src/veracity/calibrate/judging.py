"""Judging labelled rows for a calibration: the configured judge's label and signals on every row.

The offline judge is asked directly (`EntailmentJudge.assess`), and its judgement's
`features.FEATURES` are read, exactly as a check reads them. A chat model judges each row through
the claim graph a check runs (its gate and retries included), with no calibration applied, and its
verdict is described by `verdict_signals`, as a check describes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veracity.calibration.signals import verdict_signals
from veracity.evaluation.dataset import JudgeRow
from veracity.evaluation.rows import FAILED, RowEvaluator
from veracity.offline.calibration.features import FEATURES, judgement_features
from veracity.offline.plugin import shipped_judge


@dataclass(frozen=True)
class JudgedRow:
    """One labelled row as the judge saw it: its gold label, the judge's label and signals, and its group."""

    row_id: str
    claim: str
    gold: str
    label: str
    """The judge's label before any risk control, or `FAILED` when the judge gave no verdict."""
    signals: dict[str, float]
    group: str
    failure: str = ""


def judge_offline(rows: Sequence[JudgeRow], on_row: Callable[[], None] | None = None) -> list[JudgedRow]:
    """The offline judge's label and `FEATURES` on every row (blocking; run it in a worker thread)."""
    judge = shipped_judge()
    judged = []
    for row in rows:
        judgement = judge.assess(row.claim, row.evidence_items())
        features = judgement_features(judgement)
        judged.append(JudgedRow(row.id, row.claim, row.label, judgement.decision.label,
                                {name: features[name] for name in FEATURES}, row.group))
        if on_row is not None:
            on_row()
    return judged


async def judge_with_chat_model(rows: Sequence[JudgeRow], evaluator: RowEvaluator, *, concurrency: int,
                                on_row: Callable[[], None] | None = None) -> list[JudgedRow]:
    """A chat model's verdict on every row (through the claim graph), and the `SIGNALS` of each."""
    limit = asyncio.Semaphore(concurrency)
    judge = shipped_judge()

    async def one(row: JudgeRow) -> JudgedRow:
        async with limit:
            outcome = await evaluator.evaluate(row, "judge")
        label = outcome.predicted[0]
        if label == FAILED:
            found = JudgedRow(row.id, row.claim, row.label, FAILED, {}, row.group, "; ".join(outcome.failures))
        else:
            signals = await asyncio.to_thread(
                verdict_signals, row.claim, row.evidence_items(), label,  # type: ignore[arg-type]
                outcome.detail.get("evidence_id"), outcome.detail.get("quote"), judge, outcome.detail.get("logprob"))
            found = JudgedRow(row.id, row.claim, row.label, label, signals, row.group)
        if on_row is not None:
            on_row()
        return found

    return list(await asyncio.gather(*(one(row) for row in rows)))


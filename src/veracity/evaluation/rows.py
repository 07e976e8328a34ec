"""Run one dataset row through veracity and compare what it found with the row's labels."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig

from veracity.context import Context
from veracity.contracts import LABELS, Claim, Report, TraceRecord
from veracity.errors import ConfigurationError
from veracity.evaluation.dataset import ClaimsRow, DatasetKind, JudgeRow, PassRow, Row
from veracity.evaluation.matching import DEFAULT_MATCH_THRESHOLD, match_claims
from veracity.mode import OFFLINE, describe_models, step_model
from veracity.run.checker import Checker
from veracity.source_mode import with_own_source
from veracity.state import ClaimInput
from veracity.step_support.names import JUDGE_CLAIM

FAILED = "failed"
"""Predicted label of a row (or claim) whose check failed: a gate, tool or input failure. It scores 0."""

UNMATCHED = "unmatched"
"""Label for a claim with no partner: an expected claim nobody extracted, or an extracted one nobody expected."""

KIND_LABELS: dict[str, tuple[str, ...]] = {
    "judge": (*LABELS, FAILED),
    "pass": ("pass", "fail", FAILED),
    "claims": (*LABELS, UNMATCHED, FAILED),
}
"""The labels of each dataset kind's confusion matrix (gold rows, predicted columns)."""


@dataclass
class RowOutcome:
    """What one row produced: gold and predicted labels (one pair per judged item), score, cost."""

    row_id: str
    gold: list[str]
    predicted: list[str]
    score: float
    failures: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """True when the check of this row hit a gate, tool or input failure (the row scores 0)."""
        return bool(self.failures)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {**dataclasses.asdict(self), "failed": self.failed}


def answered_logprob(trace: list[TraceRecord]) -> float | None:
    """The mean token log-probability of the judge's last answer (its verdict's), where the endpoint gave one."""
    answers = [record for record in trace if record.step == JUDGE_CLAIM and record.outcome == "ok"]
    return answers[-1].logprob if answers else None


def failed_outcome(row: Row, kind: DatasetKind, message: str, seconds: float = 0.0) -> RowOutcome:
    """A row whose check produced nothing usable: every gold item predicted `FAILED`, score 0."""
    gold = gold_labels(row, kind)
    return RowOutcome(row.id, gold, [FAILED] * len(gold), 0.0, failures=[message], seconds=seconds)


def gold_labels(row: Row, kind: DatasetKind) -> list[str]:
    """The row's gold labels, one per item the evaluation judges."""
    if isinstance(row, JudgeRow):
        return [row.label]
    if isinstance(row, PassRow):
        return ["pass" if row.expected.passes else "fail"]
    return [claim.label for claim in row.expected]


class RowEvaluator:
    """Evaluates rows with one `Checker` (its graphs compiled once) and one set of settings."""

    def __init__(
        self, checker: Checker, context: Context, *, match_threshold: float = DEFAULT_MATCH_THRESHOLD,
        tags: list[str] | None = None,
    ) -> None:
        self.checker = checker
        self.resources = checker.resources
        self.context = context
        self.match_threshold = match_threshold
        self.tags = ["veracity", "veracity-eval", *(tags or [])]

    def context_for(self, row: Row) -> Context:
        """The row's settings: a row with a source is checked against that source only."""
        if isinstance(row, JudgeRow) or row.source is None:
            return self.context
        return with_own_source(self.context, row.source, "source")

    def preflight(self, rows: tuple[Row, ...]) -> str:
        """Raise `ConfigurationError` now if what the rows need is not set up; describe what will run.

        The local embedder is loaded here wherever the rows will use it (the offline judge,
        and for whole checks claim matching and reliability scores), and so is the entailment
        model in offline mode, so their one-off start-up is not counted in the first run's wall time.
        """
        from veracity.offline.model.embedder import default_embedder
        from veracity.offline.model.entailment import default_entailment_model

        if isinstance(rows[0], JudgeRow):
            judge = step_model(self.context, self.resources.mode(self.context), "judge")
            if judge == OFFLINE:
                default_embedder().embed(["warm-up"])
                default_entailment_model()
            else:
                self.resources.chat_model(self.context, max_tokens=self.context.judge_max_tokens, step="judge")
            return f"judge: {judge}; evidence: each row's own"
        default_embedder().embed(["warm-up"])
        checked = [row for row in rows if not isinstance(row, JudgeRow)]
        with_source = next((row for row in checked if row.source is not None), None)
        without_source = next((row for row in checked if row.source is None), None)
        described = []
        for row in (found for found in (with_source, without_source) if found is not None):
            mode = self.resources.preflight(self.context_for(row))
            described.append("evidence: each row's source" if mode.source else f"evidence: {mode.search}")
        if step_model(self.context, mode, "judge") == OFFLINE:
            default_entailment_model()
        return f"{describe_models(self.context, mode)}; " + ", ".join(described)

    def _config(self, row: Row) -> RunnableConfig:
        return {"run_name": "veracity.eval.row", "tags": self.tags, "metadata": {"veracity_eval_row": row.id}}

    async def evaluate(self, row: Row, kind: DatasetKind) -> RowOutcome:
        """Evaluate one row; a failure inside the check becomes a failed outcome, never an exception.

        `ConfigurationError` still propagates: it concerns every row, not this one.
        """
        started = time.perf_counter()
        try:
            if isinstance(row, JudgeRow):
                outcome = await self._judge_row(row)
            else:
                result = await self.checker.graph.ainvoke(
                    {"text": row.text}, self._config(row), context=self.context_for(row)
                )
                report: Report = result["report"]
                outcome = self._pass_row(row, report) if isinstance(row, PassRow) else self._claims_row(row, report)
        except ConfigurationError:
            raise
        except Exception as exc:  # one broken row must not lose the rest of the run
            return failed_outcome(row, kind, f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
        outcome.seconds = time.perf_counter() - started
        return outcome

    async def _judge_row(self, row: JudgeRow) -> RowOutcome:
        claim = Claim(id="c1", text=row.claim, source=row.claim, span=(0, len(row.claim)))
        branch: ClaimInput = {
            "claim": claim, "revision": 0, "prior_evidence": row.evidence_items(claim.id), "source_mode": False,
        }
        result = await self.checker.claim_graph.ainvoke(branch, self._config(row), context=self.context)
        trace = result.get("trace", [])
        tokens_in, tokens_out = sum(r.tokens_in for r in trace), sum(r.tokens_out for r in trace)
        failure = (result.get("judge_failures") or {}).get("c1")
        verdict = (result.get("verdicts") or {}).get("c1")
        if failure is not None or verdict is None:
            message = failure.message if failure is not None else "the judge produced no verdict"
            detail = {"errors": failure.errors} if failure is not None else {}
            return RowOutcome(row.id, [row.label], [FAILED], 0.0, failures=[message], tokens_in=tokens_in,
                              tokens_out=tokens_out, detail=detail)
        return RowOutcome(
            row.id, [row.label], [verdict.label], float(verdict.label == row.label),
            tokens_in=tokens_in, tokens_out=tokens_out,
            detail={"reason": verdict.reason, "evidence_id": verdict.evidence_id, "quote": verdict.quote,
                    "logprob": answered_logprob(trace)},
        )

    def _pass_row(self, row: PassRow, report: Report) -> RowOutcome:
        gold = "pass" if row.expected.passes else "fail"
        outcome = report.outcome
        predicted = FAILED if outcome == "incomplete" else outcome
        unsupported = [
            {"claim": claim.text, "label": verdict.label, "reason": verdict.reason}
            for claim in report.claims
            if (verdict := report.verdict_for(claim.id)) is not None and verdict.label != "supported"
        ]
        return RowOutcome(
            row.id, [gold], [predicted], float(predicted == gold), failures=report.problems(),
            tokens_in=report.tokens_in, tokens_out=report.tokens_out,
            detail={"mode": report.mode, "claims": len(report.claims), "not_supported": unsupported},
        )

    def _claims_row(self, row: ClaimsRow, report: Report) -> RowOutcome:
        whole_failures = [f.message for f in report.failures
                          if (f.kind == "gate" and f.step in ("input", "extract"))
                          or (f.kind == "deadline" and not report.claims)]
        if whole_failures:
            expected_labels: list[str] = [claim.label for claim in row.expected]
            return RowOutcome(row.id, expected_labels, [FAILED] * len(expected_labels), 0.0, failures=whole_failures,
                              tokens_in=report.tokens_in, tokens_out=report.tokens_out)
        failed_claims = {f.claim_id: f.message for f in report.failures if f.kind != "deadline" and f.claim_id}
        extracted = report.claims
        pairs = match_claims(
            [c.claim for c in row.expected], [c.text for c in extracted], threshold=self.match_threshold
        )
        gold_per_claim: list[str] = []
        predicted: list[str] = []
        matches = []
        for pair in pairs:
            expected = row.expected[pair.expected] if pair.expected is not None else None
            claim = extracted[pair.extracted] if pair.extracted is not None else None
            if claim is None:
                label = UNMATCHED
            elif claim.id in failed_claims:
                label = FAILED
            else:
                verdict = report.verdict_for(claim.id)
                label = verdict.label if verdict is not None else FAILED
            gold_per_claim.append(expected.label if expected is not None else UNMATCHED)
            predicted.append(label)
            matches.append({
                "expected": expected.claim if expected else None, "extracted": claim.text if claim else None,
                "similarity": pair.similarity, "gold": gold_per_claim[-1], "predicted": label,
            })
        correct = sum(g == p for g, p in zip(gold_per_claim, predicted, strict=True))
        return RowOutcome(
            row.id, gold_per_claim, predicted, correct / len(gold_per_claim) if gold_per_claim else 1.0,
            failures=list(failed_claims.values()),
            tokens_in=report.tokens_in, tokens_out=report.tokens_out, detail={"mode": report.mode, "matches": matches},
        )

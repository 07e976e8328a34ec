"""Assemble the final `Report` from graph state."""

from __future__ import annotations

from veracity.contracts import Evaluation, Report, Summary
from veracity.state import FactCheckState


def build_report(state: FactCheckState) -> Report:
    """Collect claims, verdicts, evidence, failures and trace into one report."""
    claims = state.get("claims", [])
    verdict_map = state.get("verdicts", {})
    verdicts = [verdict_map[c.id] for c in claims if c.id in verdict_map]
    evidence = [item for c in claims for item in state.get("evidence", {}).get(c.id, [])]
    failures = [f for f in (state.get("input_failure"), state.get("extraction_failure")) if f is not None]
    for claim in claims:
        for failure_map in (state.get("tool_failures", {}), state.get("judge_failures", {})):
            if failure_map.get(claim.id) is not None:
                failures.append(failure_map[claim.id])
    evaluation = state.get("evaluation") or Evaluation(passed=False)
    trace = state.get("trace", [])
    summary = Summary(
        claims=len(claims),
        supported=sum(v.label == "supported" for v in verdicts),
        refuted=sum(v.label == "refuted" for v in verdicts),
        unverifiable=sum(v.label == "unverifiable" for v in verdicts),
        failures=len(failures),
    )
    return Report(
        text=state.get("text", ""),
        claims=claims,
        verdicts=verdicts,
        evidence=evidence,
        failures=failures,
        evaluation=evaluation,
        trace=trace,
        ok=evaluation.passed,
        summary=summary,
        tokens_in=sum(r.tokens_in for r in trace),
        tokens_out=sum(r.tokens_out for r in trace),
        revisions=state.get("revision", 0),
        message=state.get("message"),
    )


def finalize_report(state: FactCheckState) -> dict:
    """Graph node: write the assembled report to the output."""
    return {"report": build_report(state)}

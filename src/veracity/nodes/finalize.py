"""finalize_report: score each claim's support and assemble the final `Report` from graph state."""

from __future__ import annotations

from veracity.protocols import StepResources
from veracity.state import FactCheckState
from veracity.step_support.assembly import build_report
from veracity.step_support.names import FINALIZE_REPORT
from veracity.step_support.tracing import TracedStep


def finalize_report(state: FactCheckState, *, resources: StepResources) -> FactCheckState:
    """Graph node: score each claim's support (`resources.support`) and write the assembled report."""
    traced = TracedStep(FINALIZE_REPORT)
    claims = state.get("claims", [])
    try:
        scores = resources.support.support_scores(claims, state.get("evidence", {})) if claims else {}
        record = traced.record("ok", "reliability scored")
    except Exception as exc:  # scores are a heuristic: their failure must not lose the report
        scores = {}
        record = traced.record("failed", f"scoring failed: {exc}")
    final_state: FactCheckState = {**state, "trace": [*state.get("trace", []), record]}
    report = build_report(final_state, scores, capabilities=resources.capabilities_of,
                          judge_version=resources.judge_version)
    return {"report": report, "trace": [record]}

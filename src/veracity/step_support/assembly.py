"""The final `Report` assembled from a run's state: what `finalize_report` writes, and the deadline report too.

Kept below the steps (`veracity.nodes`) so that the deadline (`step_support.deadline`), which writes
the report of a check it cut off, builds it the same way without importing a step.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from veracity.contracts import (
    DeadlineFailure,
    Evaluation,
    Evidence,
    GateFailure,
    Report,
    Summary,
    ToolFailure,
    Verdict,
)
from veracity.evidence.capabilities import Declarations
from veracity.scores import reliability
from veracity.state import FactCheckState

JudgeVersions = Callable[[str], str | None]
"""The version of the judge a report's `model` names, where that judge has one (`StepResources.judge_version`)."""


def single_source(verdict: Verdict, evidence: list[Evidence], capabilities: Declarations) -> str | None:
    """The one site a supported web verdict's evidence all comes from, or None (several sites, or not web).

    Web evidence is what a backend declaring `pages_to_fetch` found (`capabilities` reads an item's backend name).
    """
    if verdict.label != "supported":
        return None
    sites = {_site(item.url) for item in evidence if item.url and capabilities(item.backend).pages_to_fetch}
    return sites.pop() if len(sites) == 1 else None


def _site(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.")


def build_report(
    state: FactCheckState, scores: dict[str, float | None] | None = None, *, capabilities: Declarations,
    judge_version: JudgeVersions,
) -> Report:
    """Collect claims, verdicts, evidence, failures, trace and reliability scores into one report.

    `capabilities` says which evidence is web pages, for the single-source mark (see `single_source`);
    `judge_version` gives the version of the judge that ruled, where it has one.
    """
    scores = scores or {}
    claims = state.get("claims", [])
    verdict_map = state.get("verdicts", {})
    evidence_map = state.get("evidence", {})
    verdicts = [
        verdict_map[c.id].model_copy(update={"support_score": scores.get(c.id),
                                             "single_source": single_source(verdict_map[c.id],
                                                                            evidence_map.get(c.id, []),
                                                                            capabilities)})
        for c in claims if c.id in verdict_map
    ]
    evidence = [item for c in claims for item in state.get("evidence", {}).get(c.id, [])]
    failures: list[GateFailure | ToolFailure | DeadlineFailure] = [
        f for f in (state.get("input_failure"), state.get("extraction_failure")) if f is not None
    ]
    for claim in claims:
        for failure_map in (state.get("tool_failures", {}), state.get("judge_failures", {})):
            if failure_map.get(claim.id) is not None:
                failures.append(failure_map[claim.id])
    evaluated = state.get("evaluation")
    evaluation = evaluated or Evaluation()
    trace = state.get("trace", [])
    summary = Summary(
        claims=len(claims),
        supported=sum(v.label == "supported" for v in verdicts),
        refuted=sum(v.label == "refuted" for v in verdicts),
        unverifiable=sum(v.label == "unverifiable" for v in verdicts),
        failures=len(failures),
    )
    scored = reliability(claims, verdicts, scores)
    return Report(
        text=state.get("text", ""),
        claims=claims,
        skipped=state.get("skipped", []),
        verdicts=verdicts,
        evidence=evidence,
        failures=failures,
        evaluation=evaluation,
        trace=trace,
        ok=evaluated is not None and evaluated.sound,  # a report never evaluated is not sound
        summary=summary,
        tokens_in=sum(r.tokens_in for r in trace),
        tokens_out=sum(r.tokens_out for r in trace),
        revisions=state.get("revision", 0),
        mode=state.get("mode", ""),
        model=state.get("model", ""),
        judge_version=judge_version(state.get("model", "")),
        calibration=state.get("calibration"),
        message=state.get("message"),
        evidence_coverage=scored.evidence_coverage,
        average_similarity=scored.average_similarity,
        reliability_score=scored.reliability_score,
        hallucination_risk=scored.hallucination_risk,
        unsupported_claims=scored.unsupported_claims,
    )

"""evaluate_report: rule-based checks of the whole report (no LLM), and the revise round's feedback."""

from __future__ import annotations

from langgraph.runtime import Runtime

from veracity.citations import quote_problem
from veracity.context import Context
from veracity.contracts import Claim, Evaluation, EvaluationIssue, Evidence, Verdict
from veracity.evidence.capabilities import Declarations
from veracity.nodes.verdict_gate import computation_problem
from veracity.protocols import Calculator, StepResources
from veracity.state import FactCheckState
from veracity.step_support.names import EVALUATE_REPORT
from veracity.step_support.tracing import TracedStep


def evaluate(
    state: FactCheckState, *, calculator: Calculator, capabilities: Declarations,
    allow_snippet_citations: bool = False, verify_pages: bool = True,
) -> Evaluation:
    """Apply the report rules to the state and list every issue found.

    A decisive web verdict whose quote was not found on its fetched page, or whose page was
    not checked at all although `verify_pages` asked for it, is an issue unless
    `allow_snippet_citations`: the verdict then rests on the search engine's snippet alone.
    `capabilities` says which evidence is web pages (see `page_problem`); `calculator` computes
    plain arithmetic again (see `decisive_problem`).
    """
    issues: list[EvaluationIssue] = []
    if failure := state.get("input_failure"):
        issues.append(EvaluationIssue(code="input_rejected", message=failure.message, revisable=False))
    if failure := state.get("extraction_failure"):
        issues.append(EvaluationIssue(code="extraction_failed", message=failure.message, revisable=False))

    claims = {claim.id: claim for claim in state.get("claims", [])}
    verdicts = state.get("verdicts", {})
    evidence = state.get("evidence", {})
    tool_failures = {k: v for k, v in state.get("tool_failures", {}).items() if v is not None}
    judge_failures = {k: v for k, v in state.get("judge_failures", {}).items() if v is not None}

    for claim_id in claims:
        verdict = verdicts.get(claim_id)
        if claim_id in tool_failures:
            issues.append(EvaluationIssue(
                code="evidence_search_failed", claim_id=claim_id, revisable=False,
                message=f"{claim_id}: {tool_failures[claim_id].message}; the claim was not checked",
            ))
        if verdict is None:
            issues.append(EvaluationIssue(
                code="missing_verdict", claim_id=claim_id, revisable=True, message=f"{claim_id} has no verdict",
            ))
            continue
        if claim_id in judge_failures:
            issues.append(EvaluationIssue(
                code="judge_gate_failure", claim_id=claim_id, revisable=True,
                message=f"{claim_id}: {judge_failures[claim_id].message}",
            ))
        if verdict.label in ("supported", "refuted"):
            problem = decisive_problem(claims[claim_id], verdict, evidence.get(claim_id, []), calculator)
            if problem:
                issues.append(EvaluationIssue(
                    code="unverified_citation", claim_id=claim_id, revisable=True,
                    message=f"{claim_id} is {verdict.label} without a verified citation: {problem}",
                ))
            elif not allow_snippet_citations and (problem := page_problem(
                    verdict, evidence.get(claim_id, []), verify_pages=verify_pages, capabilities=capabilities)):
                issues.append(EvaluationIssue(
                    code="citation_not_on_page", claim_id=claim_id, revisable=False,
                    message=f"{claim_id} is {verdict.label}, but {problem}",
                ))

    if state.get("source_mode"):
        for claim_id, claim in claims.items():
            verdict = verdicts.get(claim_id)
            if verdict is not None and verdict.label != "supported" and claim_id not in tool_failures:
                verb = "contradicts" if verdict.label == "refuted" else "does not support"
                corrected = verdict.alignment.corrected_claim if verdict.alignment else None
                proposal = f'; by the source it would read "{corrected}"' if corrected else ""
                issues.append(EvaluationIssue(
                    code="unsupported_by_source", claim_id=claim_id, revisable=False,
                    message=f'{claim_id}: the answer says "{claim.source}", which the source {verb}{proposal}',
                ))

    for claim_id in verdicts:
        if claim_id not in claims:
            issues.append(EvaluationIssue(
                code="orphan_verdict", claim_id=claim_id, revisable=False,
                message=f"verdict for unknown claim {claim_id}",
            ))
    return Evaluation(issues=issues)


def page_problem(
    verdict: Verdict, evidence: list[Evidence], *, verify_pages: bool, capabilities: Declarations
) -> str | None:
    """Why a decisive verdict's cited page does not back it, or None: a page that failed, or none checked.

    A verdict quoting a web result (from a backend that declares `pages_to_fetch`) must have had
    its page checked when `verify_pages` is on, whatever its URL looks like; a page check that did
    not confirm the quote is a problem either way.
    """
    page = verdict.page
    if page is not None:
        if page.verified:
            return None
        return f"its citation was not verified on the page {page.url}: {page.reason} ({page.outcome})"
    cited = next((item for item in evidence if item.id == verdict.evidence_id), None)
    if verify_pages and cited is not None and capabilities(cited.backend).pages_to_fetch:
        return f"its cited page {cited.url or '(no URL)'} was not checked"
    return None


def decisive_problem(claim: Claim, verdict: Verdict, evidence: list[Evidence], calculator: Calculator) -> str | None:
    """Why a supported/refuted verdict is not backed: its quote, or a computation input, is not in the evidence.

    Plain arithmetic cites nothing; `calculator` computes it again from the claim, and it must give the same label.
    """
    computation = verdict.computation
    if computation is not None and not computation.inputs:
        expected = calculator.arithmetic_label(claim.text)
        return None if expected == verdict.label else "the computation does not reproduce from the claim"
    items = {item.id: item for item in evidence}
    cited = items.get(verdict.evidence_id or "")
    if cited is None:
        return "the cited evidence was not retrieved for this claim"
    problem = quote_problem(verdict.quote, cited.text)
    if problem is None and computation is not None:
        problem = computation_problem(computation, evidence)
    if problem is None and not verdict.citation_verified:
        problem = "not verified"
    return problem


def evaluate_report(state: FactCheckState, runtime: Runtime[Context], *, resources: StepResources) -> FactCheckState:
    """Evaluate the report so far and record the outcome in the trace.

    The run's wiring says which evidence is web pages and computes arithmetic again (`resources`).
    """
    traced = TracedStep(EVALUATE_REPORT, attempt=state.get("revision", 0) + 1)
    evaluation = evaluate(state, calculator=resources.calculator, capabilities=resources.capabilities_of,
                          allow_snippet_citations=runtime.context.allow_snippet_citations,
                          verify_pages=runtime.context.verify_pages)
    record = traced.record("ok" if evaluation.sound else "failed",
                           "; ".join(issue.message for issue in evaluation.issues) or None)
    return {"evaluation": evaluation, "trace": [record]}

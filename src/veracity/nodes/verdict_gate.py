"""The verdict gate: the judge's answer checked against its schema and evidence, or the exact error sent back.

A verdict must cite an evidence item retrieved for its claim and quote it verbatim, and a
computation's inputs must be quoted from their evidence: that holds for every judge. A judge may
hold its citations to a standard of its own (`Judge.citation_problem`: the offline judge's is that
the cited item be about the claim's subject); a verdict that fails it is sent back, and made
unverifiable on the last attempt. A chat model's verdicts are held to no such standard. The gate
follows the retry protocol of `veracity.step_support.attempts`: it writes its decision into the
claim's `judge_attempts`, and its router in `veracity.routes` chooses the next node.
"""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from veracity.citations import quote_problem
from veracity.context import Context
from veracity.contracts import (
    Alignment,
    Claim,
    Computation,
    Evidence,
    GateFailure,
    JudgeOutput,
    Verdict,
)
from veracity.progress import emit_verdict
from veracity.protocols import Judge, StepResources
from veracity.run_scope import RunScope
from veracity.state import ClaimState, ClaimUpdate, evidence_for
from veracity.step_support.attempts import Gate
from veracity.step_support.names import VERDICT_GATE
from veracity.step_support.payload import validate_payload


def citation_problem(output: JudgeOutput, evidence: list[Evidence]) -> str | None:
    """Return why the verdict's citation is not sound, or None when it is."""
    if output.evidence_id is None or not output.evidence_id.strip():
        return f"a {output.label} verdict must cite an evidence_id"
    by_id = {item.id: item for item in evidence}
    cited = by_id.get(output.evidence_id.strip())
    if cited is None:
        known = ", ".join(by_id) or "none"
        return f"evidence_id {output.evidence_id!r} was not retrieved for this claim (retrieved: {known})"
    problem = quote_problem(output.quote, cited.text)
    if problem:
        return f"{problem} {output.evidence_id!r}"
    return None


def computation_problem(computation: Computation, evidence: list[Evidence]) -> str | None:
    """Why a computed verdict's inputs are not sound (an input not quoted from its evidence), or None."""
    by_id = {item.id: item for item in evidence}
    for used in computation.inputs:
        cited = by_id.get(used.evidence_id)
        if cited is None:
            return f"computation input {used.value!r} cites {used.evidence_id!r}, not retrieved for this claim"
        problem = quote_problem(used.quote, cited.text)
        if problem:
            return f"computation input {used.value!r}: {problem} {used.evidence_id!r}"
        if used.value not in used.quote:
            return f"computation input {used.value!r} does not occur in its quote"
    return None


def _problem(output: JudgeOutput, computation: Computation | None, evidence: list[Evidence]) -> str | None:
    """The citation problem of a verdict; a computed one needs every input quoted, and arithmetic needs none."""
    if computation is None:
        return citation_problem(output, evidence)
    if computation.inputs:
        return citation_problem(output, evidence) or computation_problem(computation, evidence)
    return None


def _judges_own_problem(state: ClaimState, output: JudgeOutput, evidence: list[Evidence],
                        judge: Judge | None) -> str | None:
    """Why a supported/refuted verdict's citation fails its judge's own standard (`Judge.citation_problem`), or None.

    `judge` is None for a chat model, which has no standard of its own. Computed verdicts and source
    mode are exempt: a computation names its own inputs, and in source mode the given text is the only
    yardstick, whatever it names.
    """
    if judge is None or output.label == "unverifiable" or state.get("computation") is not None \
            or state.get("source_mode"):
        return None
    cited = next((item for item in evidence if item.id == (output.evidence_id or "").strip()), None)
    return judge.citation_problem(state["claim"].text, cited) if cited is not None else None


def source_mode_reason(claim: Claim, label: str, reason: str) -> str:
    """In source mode, a reason that quotes the answer's offending phrase verbatim."""
    if label == "supported":
        return reason
    verb = "contradicts" if label == "refuted" else "does not support"
    return f'The answer says "{claim.source}", which the source {verb}. {reason}'


def _verdict(state: ClaimState, gate: Gate, output: JudgeOutput, *, verified: bool, own_answer: bool = True) -> Verdict:
    """The verdict `output` makes; `own_answer` is False when the gate wrote it instead of the judge's answer."""
    computation = state.get("computation")
    verified = verified and (computation is None or bool(computation.inputs))
    reason = output.reason
    if state.get("source_mode"):
        reason = source_mode_reason(state["claim"], output.label, reason)
    # The judge's confidence, lean and calibration describe its own answer; an answer the gate wrote has none.
    leaning = state.get("judge_leaning") if own_answer and output.label == "unverifiable" else None
    return Verdict(
        claim_id=state["claim"].id,
        label=output.label,
        reason=reason,
        evidence_id=output.evidence_id.strip() if verified and output.evidence_id else None,
        quote=output.quote if verified else None,
        citation_verified=verified,
        attempts=gate.attempt,
        revision=state.get("revision", 0),
        computation=computation,
        confidence=state.get("judge_confidence") if own_answer else None,
        leaning=leaning,
        uncalibrated=own_answer and state.get("judge_calibrated") is False,
        alignment=Alignment.model_validate(state["judge_alignment"]) if own_answer and state.get("judge_alignment")
        else None,
    )


def verdict_gate(state: ClaimState, runtime: Runtime[Context], config: RunnableConfig, *,
                 resources: StepResources) -> ClaimUpdate:
    """Check the judge's schema and citation; accept, send back with the reason, or give up and downgrade."""
    claim_id = state["claim"].id
    offline = resources.offline(runtime.context, "judge", RunScope.of(config))
    judge = resources.offline_judge() if offline else None
    gate = Gate(VERDICT_GATE, state.get("judge_attempts"), limit=runtime.context.max_judge_attempts,
                claim_id=claim_id)
    evidence = evidence_for(state)

    error = gate.call_error
    headline = "judge output failed validation"
    verdict: Verdict | None = None
    if error is None:
        output, error = validate_payload(gate.payload, JudgeOutput)
        if output is not None:
            problem = _problem(output, state.get("computation"), evidence)
            off_topic = _judges_own_problem(state, output, evidence, judge) if problem is None else None
            if output.label == "unverifiable":
                verdict = _verdict(state, gate, output, verified=problem is None)
            elif off_topic is not None and gate.last_attempt:
                verdict = _verdict(state, gate, JudgeOutput(
                    label="unverifiable", reason=f"Nothing found decides the claim: {off_topic}."), verified=False,
                    own_answer=False)
            elif off_topic is not None:
                error, headline = (f"{off_topic}; cite evidence about the claim's subject, or answer unverifiable",
                                   "cited evidence is about something else")
            elif problem is None:
                verdict = _verdict(state, gate, output, verified=True)
            else:
                error, headline = problem, "citation not found in evidence"

    if verdict is not None:
        ruling = gate.accept(verdict.label)
        emit_verdict(state, verdict, evidence)
        return {
            "verdicts": {claim_id: verdict}, "judge_failures": {claim_id: None}, "judge_attempts": ruling.attempts,
            "trace": [ruling.record],
        }

    error = error or "the judge returned no verdict"  # set on every path that leaves `verdict` None
    ruling = gate.reject(error, give_up="downgraded")
    if ruling.decision == "retry":
        return {"judge_attempts": ruling.attempts, "trace": [ruling.record]}

    reason = f"{headline}: {error}"
    if state.get("source_mode"):
        reason = source_mode_reason(state["claim"], "unverifiable", reason)
    downgraded = Verdict(
        claim_id=claim_id, label="unverifiable", reason=reason, attempts=gate.attempt,
        revision=state.get("revision", 0), downgraded=True,
    )
    failure = GateFailure(
        step="judge", claim_id=claim_id, attempts=gate.attempt, errors=ruling.errors,
        message=f"{headline} after {gate.attempt} attempt(s); verdict downgraded to unverifiable",
    )
    emit_verdict(state, downgraded, evidence)
    return {
        "verdicts": {claim_id: downgraded}, "judge_failures": {claim_id: failure}, "judge_attempts": ruling.attempts,
        "trace": [ruling.record],
    }

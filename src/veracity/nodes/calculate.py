"""calculate_claim: decide computed claims (ages, durations, measures, arithmetic) by code, before the judge.

A claim the calculator recognises gets a computed verdict whose inputs are quoted evidence
sentences; the verdict gate checks those quotes like any other citation. Any other claim goes
on to the judge unchanged: `computation` in the state says which (its router reads it).
"""

from __future__ import annotations

import datetime

from langgraph.runtime import Runtime

from veracity.calculator import Answer, calculate
from veracity.context import Context
from veracity.contracts import Computation, ComputedInput
from veracity.nodes.attempts import answered, next_attempt
from veracity.nodes.names import CALCULATE_CLAIM
from veracity.nodes.tracing import TracedStep
from veracity.offline.calibration.ruling import CaseRule
from veracity.state import ClaimState, ClaimUpdate, evidence_for


def today(context: Context) -> datetime.date:
    """The date computed claims are measured to: `context.today` when set, else the system clock."""
    if context.today:
        return datetime.date.fromisoformat(context.today)
    return datetime.date.today()


def computation_of(answer: Answer) -> Computation:
    """The report's record of a computed answer."""
    return Computation(
        text=answer.text,
        inputs=[
            ComputedInput(evidence_id=used.evidence.id, quote=used.quote, value=used.value) for used in answer.inputs
        ],
        today=answer.today,
    )


def calculate_claim(state: ClaimState, runtime: Runtime[Context]) -> ClaimUpdate:
    """Compute the claim when it is a computed claim (an answer for the gate); otherwise leave it to the judge.

    The update's `computation` is set only for a computed claim.
    """
    claim = state["claim"]
    traced = TracedStep(CALCULATE_CLAIM, claim_id=claim.id)
    evidence = evidence_for(state)
    now = today(runtime.context)
    try:
        answer = calculate(claim.text, evidence, now)
    except Exception as error:  # a calculator fault must not sink the claim, nor hand arithmetic to the judge
        answer = Answer("unverifiable", f"the calculator could not compute this claim ({type(error).__name__}: "
                        f"{error}), so it is not judged.", [], now)
    if answer is None:
        record = traced.record("skipped", "not a computed claim")
        return {"claim_evidence": evidence, "computation": None, "trace": [record]}
    first = answer.inputs[0] if answer.inputs else None
    ruling = CaseRule.shipped("calculator", runtime.context.min_precision).rule({
        "label": answer.label,
        "reason": f"Computed: {answer.text}",
        "evidence_id": first.evidence.id if first else None,
        "quote": first.quote if first else None,
    })
    record = traced.record("ok", ruling.answer["label"])
    attempt = next_attempt(state.get("judge_attempts"))
    update: ClaimUpdate = {
        "claim_evidence": evidence, "judge_attempts": answered(attempt, ruling.answer),
        "computation": computation_of(answer), "trace": [record],
        "judge_confidence": ruling.confidence, "judge_leaning": ruling.leaning,
    }
    return update

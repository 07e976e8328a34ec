"""calculate_claim: decide computed claims (ages, durations, measures, arithmetic) by code, before the judge.

A claim the calculator recognises gets a computed verdict whose inputs are quoted evidence
sentences; the verdict gate checks those quotes like any other citation. Any other claim goes
on to the judge unchanged: `computation` in the state says which (its router reads it).
"""

from __future__ import annotations

import datetime

from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.protocols import StepResources
from veracity.state import ClaimState, ClaimUpdate, evidence_for
from veracity.step_support.attempts import answered, next_attempt
from veracity.step_support.names import CALCULATE_CLAIM
from veracity.step_support.tracing import TracedStep


def today(context: Context) -> datetime.date:
    """The date computed claims are measured to: `context.today` when set, else the system clock."""
    if context.today:
        return datetime.date.fromisoformat(context.today)
    return datetime.date.today()


def calculate_claim(state: ClaimState, runtime: Runtime[Context], *, resources: StepResources) -> ClaimUpdate:
    """Compute the claim when it is a computed claim (an answer for the gate); otherwise leave it to the judge.

    The update's `computation` is set only for a computed claim. The answer comes ruled by the
    calculator's own calibration (`veracity.protocols.Calculator`).
    """
    claim = state["claim"]
    traced = TracedStep(CALCULATE_CLAIM, claim_id=claim.id)
    evidence = evidence_for(state)
    computed = resources.calculator.compute(claim.text, evidence, today(runtime.context),
                                            min_precision=runtime.context.min_precision)
    if computed is None:
        record = traced.record("skipped", "not a computed claim")
        return {"claim_evidence": evidence, "computation": None, "trace": [record]}
    ruling = computed.ruling
    record = traced.record("ok", ruling.answer["label"])
    attempt = next_attempt(state.get("judge_attempts"))
    update: ClaimUpdate = {
        "claim_evidence": evidence, "judge_attempts": answered(attempt, ruling.answer),
        "computation": computed.computation, "trace": [record],
        "judge_confidence": ruling.confidence, "judge_leaning": ruling.leaning, "judge_calibrated": True,
        "judge_alignment": None,
    }
    return update

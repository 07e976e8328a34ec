"""The calculator as the core's plug-in (`veracity.protocols.Calculator`), with its own calibration.

A computed answer is ruled by the calculator's section of the shipped calibration (`CaseRule`): a
supported or refuted answer is kept only where the calculator's verdicts of that label are certified
at the run's `min_precision`.
"""

from __future__ import annotations

import datetime

from veracity.calculator.answer import Answer
from veracity.calculator.arithmetic import decide_arithmetic, is_arithmetic
from veracity.calculator.solve import calculate
from veracity.contracts import Computation, ComputedInput, Evidence, Label
from veracity.offline.calibration.ruling import CaseRule
from veracity.protocols import Computed


def computation_of(answer: Answer) -> Computation:
    """The report's record of a computed answer."""
    return Computation(
        text=answer.text,
        inputs=[
            ComputedInput(evidence_id=used.evidence.id, quote=used.quote, value=used.value) for used in answer.inputs
        ],
        today=answer.today,
    )


class ShippedCalculator:
    """Ages, durations, lifespans, measures, comparisons and arithmetic, computed from quoted evidence."""

    def is_arithmetic(self, claim: str) -> bool:
        """Whether `claim` is plain arithmetic (`veracity.calculator.arithmetic`)."""
        return is_arithmetic(claim)

    def arithmetic_label(self, claim: str) -> Label | None:
        """The label of plain arithmetic computed again; None when it is none, or cannot be decided."""
        result = decide_arithmetic(claim)
        if result is None or result.holds is None:
            return None
        return "supported" if result.holds else "refuted"

    def compute(self, claim: str, evidence: list[Evidence], today: datetime.date, *,
                min_precision: float) -> Computed | None:
        """The computed answer on `claim`, ruled by the calculator's calibration; None for any other claim.

        A fault of the calculator must not sink the claim, nor hand arithmetic to the judge: it is an
        unverifiable answer that says what went wrong.
        """
        try:
            answer = calculate(claim, evidence, today)
        except Exception as error:
            answer = Answer("unverifiable", f"the calculator could not compute this claim ({type(error).__name__}: "
                            f"{error}), so it is not judged.", [], today)
        if answer is None:
            return None
        first = answer.inputs[0] if answer.inputs else None
        ruling = CaseRule.shipped("calculator", min_precision).rule({
            "label": answer.label,
            "reason": f"Computed: {answer.text}",
            "evidence_id": first.evidence.id if first else None,
            "quote": first.quote if first else None,
        })
        return Computed(computation_of(answer), ruling)

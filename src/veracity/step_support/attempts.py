"""The retry protocol both gates share: accept an answer, ask again with its exact error, or give up after N.

A gated step (`extract_claims`, `judge_claim`, and `calculate_claim` standing in for the judge)
writes each answer into its `GateAttempts` with `answered`; its gate rules on the answer with a
`Gate`, and the gate's router reads the decision. A retry's prompt carries the gate's errors
(`gate_errors`, turned into messages by `veracity.prompts.retry`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from veracity.contracts import TraceOutcome, TraceRecord
from veracity.state import GateAttempts, GateDecision
from veracity.step_support.tracing import TracedStep


def next_attempt(attempts: GateAttempts | None) -> int:
    """The number of the step's next attempt: 1 for its first."""
    return (attempts or GateAttempts()).get("attempt", 0) + 1


def gate_errors(attempts: GateAttempts | None) -> list[str]:
    """The errors the gate has sent back so far, oldest first: the step's retry feedback."""
    return (attempts or GateAttempts()).get("errors", [])


def answered(attempt: int, payload: Any, call_error: str | None = None) -> GateAttempts:
    """A step's update for one attempt: its raw answer for the gate, or (payload None) why there is none."""
    return {"attempt": attempt, "payload": payload, "call_error": call_error}


@dataclass(frozen=True)
class GateRuling:
    """A gate's ruling on one answer: the update to the step's attempts, and the gate's trace record."""

    attempts: GateAttempts
    record: TraceRecord

    @property
    def decision(self) -> GateDecision:
        """Accept the answer, ask again, or give up."""
        return self.attempts["decision"]

    @property
    def errors(self) -> list[str]:
        """Every error the gate has found so far (set when it rejected the answer)."""
        return self.attempts.get("errors", [])


class Gate:
    """A gate ruling on its step's latest answer, timed for the trace from its creation."""

    def __init__(self, name: str, attempts: GateAttempts | None, *, limit: int, claim_id: str | None = None) -> None:
        self.attempts: GateAttempts = attempts or GateAttempts()
        self.attempt = self.attempts.get("attempt", 1)
        """The attempt the answer came from."""
        self.limit = limit
        """The most attempts the step gets."""
        self._step = TracedStep(name, claim_id=claim_id, attempt=self.attempt)

    @property
    def payload(self) -> Any:
        """The step's raw answer, or None."""
        return self.attempts.get("payload")

    @property
    def call_error(self) -> str | None:
        """Why the step's call gave no answer to validate, or None."""
        return self.attempts.get("call_error")

    @property
    def last_attempt(self) -> bool:
        """Whether this is the step's last attempt: rejecting its answer gives up."""
        return self.attempt >= self.limit

    def accept(self, reason: str) -> GateRuling:
        """Accept the answer; `reason` sums it up in the trace."""
        return GateRuling({"decision": "accept"}, self._step.record("ok", reason))

    def reject(self, error: str, *, give_up: TraceOutcome) -> GateRuling:
        """Reject the answer for `error`: ask again with it while attempts are left, else give up.

        The trace records a retry, or the `give_up` outcome ('failed', or 'downgraded' for a verdict).
        """
        errors = [*self.attempts.get("errors", []), error]
        if self.last_attempt:
            return GateRuling({"errors": errors, "decision": "give_up"}, self._step.record(give_up, error))
        return GateRuling({"errors": errors, "decision": "retry"}, self._step.record("retry", error))

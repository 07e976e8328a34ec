"""The traced-step helper: every node times its step with it and builds its trace record from it."""

from __future__ import annotations

import time

from veracity.cache_outcomes import CacheOutcome
from veracity.contracts import StructuredMethod, TraceOutcome, TraceRecord


class TracedStep:
    """One step of one attempt, timed from its creation; `record` builds its `TraceRecord`.

    Start it where the step's work starts; every record it builds names the step, claim and
    attempt it was started with and the seconds elapsed until then.
    """

    def __init__(self, step: str, *, claim_id: str | None = None, attempt: int = 1) -> None:
        self.step = step
        self.claim_id = claim_id
        self.attempt = attempt
        self._start = time.perf_counter()

    @property
    def seconds(self) -> float:
        """Seconds since the step started, rounded to the microsecond."""
        return round(time.perf_counter() - self._start, 6)

    def record(
        self,
        outcome: TraceOutcome,
        reason: str | None = None,
        *,
        tokens_in: int = 0,
        tokens_out: int = 0,
        cache: CacheOutcome | None = None,
        structured: StructuredMethod | None = None,
        logprob: float | None = None,
    ) -> TraceRecord:
        """The trace record of the step so far: its outcome, why, and (for a model call or search) what it cost."""
        return TraceRecord(
            step=self.step, claim_id=self.claim_id, attempt=self.attempt, outcome=outcome, reason=reason,
            tokens_in=tokens_in, tokens_out=tokens_out, seconds=self.seconds, cache=cache, structured=structured,
            logprob=logprob,
        )

"""gather_evidence: search the backend for one claim, with retries, and validate what comes back."""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from veracity.calculator.arithmetic import is_arithmetic
from veracity.context import Context
from veracity.contracts import Evidence, SearchHit, ToolFailure, TraceRecord, Verdict
from veracity.errors import ConfigurationError, ToolError
from veracity.evidence.base import EvidenceBackend
from veracity.nodes.names import CALCULATE_CLAIM, END, GATHER_EVIDENCE, AfterEvidence, ClaimStart
from veracity.nodes.timing import Stopwatch
from veracity.progress import emit_verdict
from veracity.runtime.resources import Resources
from veracity.state import ClaimState, ClaimUpdate

NO_EVIDENCE_REASON = "no evidence was found for this claim"


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, ToolError) and exc.transient


async def _search_once(backend: EvidenceBackend, query: str, context: Context) -> list[SearchHit]:
    try:
        hits = await asyncio.wait_for(backend.search(query, limit=context.max_results), context.search_timeout)
    except TimeoutError as exc:
        raise ToolError("timeout", f"search timed out after {context.search_timeout:g}s") from exc
    except ToolError:
        raise
    except Exception as exc:  # unknown backend errors are retried like outages
        raise ToolError("error", f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(hits, list) or not all(isinstance(hit, SearchHit) for hit in hits):
        raise ToolError("malformed",
                        f"backend {backend.name!r} returned {type(hits).__name__}, not a list of SearchHit")
    return hits


def _evidence(claim_id: str, backend: str, hits: list[SearchHit]) -> list[Evidence]:
    return [
        Evidence(id=f"{claim_id}-e{index}", claim_id=claim_id, backend=backend, **hit.model_dump())
        for index, hit in enumerate(hits, start=1)
    ]


def _failure_update(state: ClaimState, backend: str, error: ToolError, trace: list[TraceRecord]) -> ClaimUpdate:
    claim = state["claim"]
    attempts = max(1, len(trace))
    failure = ToolFailure(
        claim_id=claim.id, backend=backend, error=error.kind, attempts=attempts,
        message=f"evidence search failed after {attempts} attempt(s): {error}",
    )
    verdict = Verdict(
        claim_id=claim.id, label="unverifiable", reason=f"evidence search failed: {error}",
        attempts=0, revision=state.get("revision", 0),
    )
    emit_verdict(state, verdict)
    return {
        "claim_evidence": [],
        "evidence": {claim.id: []},
        "tool_failures": {claim.id: failure},
        "verdicts": {claim.id: verdict},
        "judge_failures": {claim.id: None},
        "trace": trace,
    }


async def gather_evidence(state: ClaimState, runtime: Runtime[Context], *, resources: Resources) -> ClaimUpdate:
    """Search for evidence; after the last failed attempt, record a `ToolFailure` for the claim."""
    context = runtime.context
    claim = state["claim"]
    trace: list[TraceRecord] = []
    retrying = AsyncRetrying(
        stop=stop_after_attempt(max(1, context.search_attempts)),
        wait=wait_exponential_jitter(
            multiplier=context.search_backoff, max=context.search_backoff * 8, jitter=context.search_backoff
        ),
        retry=retry_if_exception(_is_transient),
        reraise=True,
    )
    try:
        async with resources.evidence_backend(context) as backend:
            backend_name = backend.name
            async for attempt in retrying:
                with attempt:
                    number = attempt.retry_state.attempt_number
                    watch = Stopwatch()
                    try:
                        hits = await _search_once(backend, claim.text, context)
                    except ToolError as exc:
                        last = not exc.transient or number >= context.search_attempts
                        trace.append(TraceRecord(
                            step=GATHER_EVIDENCE, claim_id=claim.id, attempt=number,
                            outcome="failed" if last else "retry", reason=f"{exc.kind}: {exc}", seconds=watch.seconds,
                        ))
                        raise
                    trace.append(TraceRecord(
                        step=GATHER_EVIDENCE, claim_id=claim.id, attempt=number, outcome="ok",
                        reason=f"{len(hits)} item(s)", seconds=watch.seconds,
                    ))
    except ConfigurationError as exc:
        trace.append(TraceRecord(step=GATHER_EVIDENCE, claim_id=claim.id, outcome="failed", reason=str(exc)))
        return _failure_update(state, context.search, ToolError("auth", str(exc), transient=False), trace)
    except ToolError as exc:  # the last attempt's error (tenacity re-raises it)
        return _failure_update(state, backend_name, exc, trace)

    evidence = _evidence(claim.id, backend_name, hits)
    update: ClaimUpdate = {
        "claim_evidence": evidence,
        "evidence": {claim.id: evidence},
        "tool_failures": {claim.id: None},
        "trace": trace,
    }
    if not evidence:
        verdict = Verdict(
            claim_id=claim.id, label="unverifiable", reason=NO_EVIDENCE_REASON, attempts=0,
            revision=state.get("revision", 0),
        )
        emit_verdict(state, verdict)
        update["verdicts"] = {claim.id: verdict}
        update["judge_failures"] = {claim.id: None}
    return update


def route_after_evidence(state: ClaimState) -> AfterEvidence:
    """Go on (calculator, then judge) only when there is evidence to judge against."""
    return CALCULATE_CLAIM if state.get("claim_evidence") else END


def route_claim_start(state: ClaimState) -> ClaimStart:
    """Plain arithmetic needs no evidence, and a revise round brings its own: both skip the search."""
    if state.get("prior_evidence") or is_arithmetic(state["claim"].text):
        return CALCULATE_CLAIM
    return GATHER_EVIDENCE

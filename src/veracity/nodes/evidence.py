"""gather_evidence: search the backend for one claim, with retries, and validate what comes back."""

from __future__ import annotations

import asyncio

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from veracity.cache_outcomes import observe_cache, overall
from veracity.context import Context
from veracity.contracts import Evidence, SearchHit, ToolFailure, TraceRecord, Verdict
from veracity.errors import ConfigurationError, ToolError
from veracity.evidence.base import EvidenceBackend
from veracity.evidence.counter import TRACE_PREFIX as COUNTER_TRACE_PREFIX
from veracity.evidence.counter import counter_query
from veracity.evidence.search_clock import within_search_timeout
from veracity.progress import emit_verdict
from veracity.protocols import StepResources
from veracity.run_scope import RunScope
from veracity.state import ClaimState, ClaimUpdate
from veracity.step_support.names import GATHER_EVIDENCE
from veracity.step_support.tracing import TracedStep

NO_EVIDENCE_REASON = "no evidence was found for this claim"


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, ToolError) and exc.transient


async def _search_once(backend: EvidenceBackend, query: str, context: Context) -> list[SearchHit]:
    try:
        async with within_search_timeout(context.search_timeout):  # a backend's one-time work is not counted
            hits = await backend.search(query, limit=context.max_results)
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


async def _search_with_retries(backend: EvidenceBackend, query: str, context: Context, claim_id: str,
                               trace: list[TraceRecord], label: str) -> list[SearchHit]:
    """One query, retried while its errors are transient; every attempt is recorded in `trace`."""
    retrying = AsyncRetrying(
        stop=stop_after_attempt(max(1, context.search_attempts)),
        wait=wait_exponential_jitter(
            multiplier=context.search_backoff, max=context.search_backoff * 8, jitter=context.search_backoff
        ),
        retry=retry_if_exception(_is_transient),
        reraise=True,
    )
    hits: list[SearchHit] = []
    async for attempt in retrying:
        with attempt:
            number = attempt.retry_state.attempt_number
            traced = TracedStep(GATHER_EVIDENCE, claim_id=claim_id, attempt=number)
            try:
                with observe_cache() as seen:
                    hits = await _search_once(backend, query, context)
            except ToolError as exc:
                last = not exc.transient or number >= context.search_attempts
                trace.append(traced.record("failed" if last else "retry", f"{label}{exc.kind}: {exc}"))
                raise
            trace.append(traced.record("ok", f"{label}{len(hits)} item(s)", cache=overall(seen)))
    return hits


async def gather_evidence(state: ClaimState, runtime: Runtime[Context], config: RunnableConfig, *,
                          resources: StepResources) -> ClaimUpdate:
    """Search for evidence; after the last failed attempt, record a `ToolFailure` for the claim.

    A backend that declares `counter_search` (the web) is searched twice at once: for the claim,
    and for evidence against it (`counter_query`). The counter search adds what it finds (pages already found are not
    repeated); its failure is recorded in the trace and leaves the claim's own evidence standing.
    """
    context = runtime.context
    claim = state["claim"]
    setup = TracedStep(GATHER_EVIDENCE, claim_id=claim.id)
    trace: list[TraceRecord] = []
    counter_trace: list[TraceRecord] = []
    counter_hits: list[SearchHit] | BaseException = []
    try:
        async with resources.evidence_backend(context, RunScope.of(config)) as backend:
            backend_name = backend.name
            searches = [_search_with_retries(backend, claim.text, context, claim.id, trace, "")]
            if context.counter_search and resources.declared(backend).counter_search:
                searches.append(_search_with_retries(backend, claim.counter_query or counter_query(claim.text),
                                                     context, claim.id,
                                                     counter_trace, COUNTER_TRACE_PREFIX))
            found = await asyncio.gather(*searches, return_exceptions=True)
    except ConfigurationError as exc:
        trace.append(setup.record("failed", str(exc)))
        return _failure_update(state, context.search, ToolError("auth", str(exc), transient=False), trace)
    hits = found[0]
    if isinstance(hits, ToolError):  # the last attempt's error (tenacity re-raises it)
        failed = _failure_update(state, backend_name, hits, trace)
        return {**failed, "trace": trace + counter_trace}
    if isinstance(hits, BaseException):
        raise hits
    trace += counter_trace
    if len(found) > 1:
        counter_hits = found[1]
        if isinstance(counter_hits, BaseException) and not isinstance(counter_hits, ToolError):
            raise counter_hits

    evidence = _evidence(claim.id, backend_name, hits)
    if isinstance(counter_hits, list):
        evidence += _counter_evidence(claim.id, backend_name, counter_hits, evidence)
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


def _counter_evidence(claim_id: str, backend: str, hits: list[SearchHit], found: list[Evidence]) -> list[Evidence]:
    seen = {item.url or item.text for item in found}
    fresh = [hit for hit in hits if (hit.url or hit.text) not in seen]
    return [
        Evidence(id=f"{claim_id}-e{index}", claim_id=claim_id, backend=backend, found_by="counter", **hit.model_dump())
        for index, hit in enumerate(fresh, start=len(found) + 1)
    ]

"""Gate nodes: validate the previous step's output, retry with the exact error, or record a failure.

Both gates follow one retry protocol (`veracity.nodes.attempts`): each writes its decision
(`GateDecision`) into its step's `GateAttempts`, and its router in `veracity.routes` reads it to
choose the next node.
"""

from __future__ import annotations

import re
from collections import Counter

from langgraph.runtime import Runtime

from veracity.citations import quote_problem
from veracity.context import Context
from veracity.contracts import (
    SKIP_REASONS,
    Claim,
    Computation,
    Evidence,
    ExtractionOutput,
    GateFailure,
    JudgeOutput,
    Skipped,
    Verdict,
)
from veracity.nodes.attempts import Gate
from veracity.nodes.extract import WORDS_PER_CLAIM, statement_limit, word_count
from veracity.nodes.names import EXTRACTION_GATE, VERDICT_GATE
from veracity.nodes.payload import validate_payload
from veracity.offline.extract import skip_reason
from veracity.offline.judge.relevance import citation_off_topic
from veracity.progress import ProgressEvent, emit, emit_verdict
from veracity.resources import OFFLINE
from veracity.state import ClaimState, ClaimUpdate, FactCheckState, evidence_for

NO_CLAIMS_MESSAGE = "No checkable factual claims found (questions, greetings and opinions are not checked)."
_LISTED_SKIPPED = 5
"""How many skipped statements the no-claims message quotes before it only counts the rest."""


def locate(source: str, text: str, start: int = 0) -> tuple[int, int] | None:
    """Find `source` in `text` (exactly, else ignoring whitespace and case); return its span."""
    for offset in (start, 0):
        index = text.find(source, offset)
        if index >= 0:
            return index, index + len(source)
    words = source.split()
    if not words:
        return None
    pattern = re.compile(r"\s+".join(map(re.escape, words)), re.IGNORECASE)
    match = pattern.search(text, start) or pattern.search(text)
    return match.span() if match else None


def claim_count_problem(output: ExtractionOutput, text: str) -> str | None:
    """Why a model's extraction lists more claims than the request schema allows, or None.

    The bound is the schema's `maxItems` (`statement_limit`). It is checked before any claim is
    located or fanned out, so an answer from a server that ignored the schema costs no search
    and no judge call.
    """
    limit = statement_limit(text)
    if len(output.claims) <= limit:
        return None
    return (
        f"the answer lists {len(output.claims):,} claims; a text of {word_count(text):,} words holds at most "
        f"{limit:,} (one per {WORDS_PER_CLAIM} words): list each claim the text states once"
    )


def claims_from_output(output: ExtractionOutput, text: str) -> tuple[list[Claim], str | None]:
    """Turn a validated extraction into claims with spans; return an error if a source is not in the text."""
    claims: list[Claim] = []
    seen: set[str] = set()
    cursor = 0
    for index, item in enumerate(output.claims):
        span = locate(item.source, text, cursor)
        if span is None:
            return [], (
                f"claims[{index}].source {item.source!r} is not a verbatim passage of the text; "
                "copy the sentence the claim comes from exactly"
            )
        key = " ".join(item.claim.casefold().split())
        if key in seen:
            continue
        seen.add(key)
        cursor = span[0]
        claims.append(Claim(id=f"c{len(claims) + 1}", text=item.claim, source=text[span[0]:span[1]], span=span,
                            counter_query=(item.counter_query or "").strip() or None))
    return claims, None


def skipped_from_output(output: ExtractionOutput, text: str) -> list[Skipped]:
    """The statements the extractor skipped, located in the text (one it cannot locate is left out)."""
    skipped = []
    cursor = 0
    for item in output.skipped:
        span = locate(item.source, text, cursor)
        if span is not None:
            cursor = span[1]  # a repeated "Thanks!" is found again further on
            skipped.append(Skipped(source=text[span[0]:span[1]], span=span, reason=item.reason,
                                   message=SKIP_REASONS[item.reason]))
    return sorted(skipped, key=lambda statement: statement.span)


def set_aside_unworthy(
    claims: list[Claim], skipped: list[Skipped], *, source_mode: bool
) -> tuple[list[Claim], list[Skipped]]:
    """Move the claims that are not check-worthy to `skipped`, with their reason and source span.

    The same rule as the offline splitter's (`veracity.offline.extract.skip_reason`): a claim that is
    courtesy, a question, an opinion or value judgement, or a prediction is not judged. So is one
    whose source is only courtesy or a question ("Is the museum open on Sundays?" returned as "The
    museum is open on Sundays."). The claims left are numbered again from c1; statements are listed
    once, in reading order.
    """
    kept: list[Claim] = []
    moved: list[Skipped] = []
    for claim in claims:
        reason = skip_reason(claim.text, source_mode=source_mode)
        source = claim.source.strip()
        if reason is None and source != claim.text.strip():
            # a source cut from a sentence ("was funded by ...") is no unpunctuated question
            source += "" if source.endswith(("?", ".", "!")) else "."
            from_source = skip_reason(source, source_mode=source_mode)
            reason = from_source if from_source in ("courtesy", "question") else None
        if reason is None:
            kept.append(claim.model_copy(update={"id": f"c{len(kept) + 1}"}))
        else:
            moved.append(Skipped(source=claim.source, span=claim.span, reason=reason, message=SKIP_REASONS[reason]))
    listed = {statement.span: statement for statement in [*skipped, *moved]}
    return kept, sorted(listed.values(), key=lambda statement: statement.span)


def no_claims_message(skipped: list[Skipped]) -> str:
    """Why there is nothing to judge: `NO_CLAIMS_MESSAGE`, or what was skipped and why."""
    if not skipped:
        return NO_CLAIMS_MESSAGE
    quoted = [f"“{statement.source}” ({statement.reason})" for statement in skipped[:_LISTED_SKIPPED]]
    if len(skipped) > _LISTED_SKIPPED:
        quoted.append(f"{len(skipped) - _LISTED_SKIPPED} more")
    counts = Counter(statement.reason for statement in skipped)
    kinds = ", ".join(f"{count} {reason}" for reason, count in counts.items())
    return f"No checkable factual claims found; not checked ({kinds}): {'; '.join(quoted)}."


def extraction_gate(state: FactCheckState, runtime: Runtime[Context]) -> FactCheckState:
    """Validate the extraction: accept its claims, ask for a retry with the error, or give up cleanly.

    A rejected input has nothing to validate: the gate gives up at once, with no claims.
    """
    gate = Gate(EXTRACTION_GATE, state.get("extraction_attempts"), limit=runtime.context.max_extraction_attempts)
    if state.get("input_failure"):
        return {"claims": [], "extraction_attempts": {"decision": "give_up"}}

    error = gate.call_error
    claims: list[Claim] = []
    skipped: list[Skipped] = []
    if error is None:
        output, error = validate_payload(gate.payload, ExtractionOutput)
        if output is not None and state.get("model") != OFFLINE:  # the offline splitter is not asked for a schema
            error = claim_count_problem(output, state["text"])
        if output is not None and error is None:
            claims, error = claims_from_output(output, state["text"])
            skipped = skipped_from_output(output, state["text"])

    if error is None:
        extracted = len(claims)
        claims, skipped = set_aside_unworthy(claims, skipped, source_mode=state.get("source_mode", False))
        set_aside = f"; {extracted - len(claims)} not check-worthy, skipped" if extracted > len(claims) else ""
        ruling = gate.accept(f"{len(claims)} claim(s){set_aside}")
        update: FactCheckState = {
            "claims": claims, "skipped": skipped, "revision": 0, "extraction_attempts": ruling.attempts,
            "trace": [ruling.record],
        }
        if not claims:
            return {**update, "message": no_claims_message(skipped)}
        emit(ProgressEvent(kind="claims", claims=claims))
        return update

    ruling = gate.reject(error, give_up="failed")
    if ruling.decision == "retry":
        return {"extraction_attempts": ruling.attempts, "trace": [ruling.record]}
    failure = GateFailure(
        step="extract", attempts=gate.attempt, errors=ruling.errors,
        message=f"claim extraction failed validation {gate.attempt} time(s); last error: {error}",
    )
    return {
        "claims": [], "extraction_attempts": ruling.attempts, "extraction_failure": failure, "trace": [ruling.record],
    }


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


def _off_topic(state: ClaimState, output: JudgeOutput, evidence: list[Evidence]) -> str | None:
    """Why a judged supported/refuted verdict cites evidence about something else (see `relevance`), or None.

    Computed verdicts and source mode are exempt: a computation names its own inputs, and in source
    mode the given text is the only yardstick, whatever it names.
    """
    if output.label == "unverifiable" or state.get("computation") is not None or state.get("source_mode"):
        return None
    cited = next((item for item in evidence if item.id == (output.evidence_id or "").strip()), None)
    return citation_off_topic(state["claim"].text, cited) if cited is not None else None


def source_mode_reason(claim: Claim, label: str, reason: str) -> str:
    """In source mode, a reason that quotes the answer's offending phrase verbatim."""
    if label == "supported":
        return reason
    verb = "contradicts" if label == "refuted" else "does not support"
    return f'The answer says "{claim.source}", which the source {verb}. {reason}'


def _verdict(state: ClaimState, gate: Gate, output: JudgeOutput, *, verified: bool) -> Verdict:
    computation = state.get("computation")
    verified = verified and (computation is None or bool(computation.inputs))
    reason = output.reason
    if state.get("source_mode"):
        reason = source_mode_reason(state["claim"], output.label, reason)
    # The judge's confidence and lean describe its own answer; an answer the gate changed has neither.
    payload = gate.payload
    own_answer = isinstance(payload, dict) and payload.get("label") == output.label
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
    )


def verdict_gate(state: ClaimState, runtime: Runtime[Context]) -> ClaimUpdate:
    """Check the judge's schema and citation; accept, send back with the reason, or give up and downgrade."""
    claim_id = state["claim"].id
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
            off_topic = _off_topic(state, output, evidence) if problem is None else None
            if output.label == "unverifiable":
                verdict = _verdict(state, gate, output, verified=problem is None)
            elif off_topic is not None and gate.last_attempt:
                verdict = _verdict(state, gate, JudgeOutput(
                    label="unverifiable", reason=f"Nothing found decides the claim: {off_topic}."), verified=False)
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

"""The extraction gate: an extraction's claims located in the text, counted and sorted, or the exact error sent back.

Every claim must quote a span of the text; the answer must not list more claims than the request
schema allows; claims that are not check-worthy are set aside with their reason. The gate follows
the retry protocol of `veracity.step_support.attempts`: it writes its decision into `extraction_attempts`,
and its router in `veracity.routes` sends a rejected answer back with the exact error, until the
attempts run out.
"""

from __future__ import annotations

import re
from collections import Counter

from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import (
    SKIP_REASONS,
    Claim,
    ExtractionOutput,
    GateFailure,
    Skipped,
)
from veracity.mode import OFFLINE
from veracity.nodes.extract import WORDS_PER_CLAIM, statement_limit, word_count
from veracity.progress import ProgressEvent, emit
from veracity.protocols import ClaimSplitter, StepResources
from veracity.state import FactCheckState
from veracity.step_support.attempts import Gate
from veracity.step_support.names import EXTRACTION_GATE
from veracity.step_support.payload import validate_payload

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
    claims: list[Claim], skipped: list[Skipped], *, source_mode: bool, splitter: ClaimSplitter
) -> tuple[list[Claim], list[Skipped]]:
    """Move the claims that are not check-worthy to `skipped`, with their reason and source span.

    The same rule as the offline splitter's (`splitter.skip_reason`): a claim that is
    courtesy, a question, an opinion or value judgement, or a prediction is not judged. So is one
    whose source is only courtesy or a question ("Is the museum open on Sundays?" returned as "The
    museum is open on Sundays."). The claims left are numbered again from c1; statements are listed
    once, in reading order.
    """
    kept: list[Claim] = []
    moved: list[Skipped] = []
    for claim in claims:
        reason = splitter.skip_reason(claim.text, source_mode=source_mode)
        source = claim.source.strip()
        if reason is None and source != claim.text.strip():
            # a source cut from a sentence ("was funded by ...") is no unpunctuated question
            source += "" if source.endswith(("?", ".", "!")) else "."
            from_source = splitter.skip_reason(source, source_mode=source_mode)
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


def extraction_gate(state: FactCheckState, runtime: Runtime[Context], *, resources: StepResources) -> FactCheckState:
    """Validate the extraction: accept its claims, ask for a retry with the error, or give up cleanly.

    A rejected input has nothing to validate: the gate gives up at once, with no claims. Claims that
    are not check-worthy by the splitter's rule (`resources.splitter`) are set aside.
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
        claims, skipped = set_aside_unworthy(claims, skipped, source_mode=state.get("source_mode", False),
                                             splitter=resources.splitter)
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

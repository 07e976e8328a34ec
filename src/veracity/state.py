"""Graph state: the input, internal and output schemas, and their reducers.

The top-level graph runs extraction and evaluation; each claim runs through its own
`check_claim` subgraph (evidence, judge, gate), reached by `Send`. Per-claim results are
keyed by claim id and merged with `merge_by_key`, so a revise round replaces only the
claims it re-ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired, TypeVar, get_origin, get_type_hints

from typing_extensions import TypedDict

from veracity.contracts import (
    CalibrationOrigin,
    Claim,
    Computation,
    Evaluation,
    Evidence,
    GateFailure,
    Report,
    Skipped,
    ToolFailure,
    TraceRecord,
    Verdict,
)

GateDecision = Literal["accept", "retry", "give_up"]
"""What a gate decided about the step before it: accept its output, ask it again, or give up (record a failure)."""


class GateAttempts(TypedDict, total=False):
    """A gated step's attempts (extraction, judging): its latest answer and its gate's bookkeeping.

    The step's node writes `attempt`, `payload` and `call_error`; the gate writes `errors` and
    `decision` (`veracity.step_support.attempts`). Updates merge field by field (`merge_keeping_none`).
    """

    attempt: int
    """The attempt the latest answer came from, counted from 1."""
    payload: Any
    """The latest raw answer, for the gate to validate; None when the call gave none."""
    call_error: str | None
    """Why the latest call gave no answer to validate (it failed, or was cut off at its cap), or None."""
    errors: list[str]
    """Every answer the gate rejected, its error in order; a retry sends the last one back as feedback."""
    decision: GateDecision
    """The gate's decision on the latest answer, which its router reads."""


def merge_by_key(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Merge per-claim dicts in the top-level state; a `None` value on the right removes that key."""
    merged = dict(left or {})
    for key, value in (right or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def merge_keeping_none(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Merge dicts key by key, keeping `None` values: per-claim markers for the parent, or a field set to None."""
    return {**(left or {}), **(right or {})}


Item = TypeVar("Item")


def concatenate(left: list[Item] | None, right: list[Item] | None) -> list[Item]:
    """Append the new items (trace records) to those already there, in the order they arrive."""
    return [*(left or []), *(right or [])]


Reducer = Callable[[Any, Any], Any]
"""Combines a key's current value (None when it has none yet) with an update to it."""


def reducers(schema: type) -> dict[str, Reducer]:
    """The reducer each key of a state schema declares, as ``Annotated[type, reducer]`` (as LangGraph reads it).

    Keys without one are left out: an update replaces their value. Every reducer here takes None
    for a key not set yet, so code that follows a run outside the graph (`veracity.run.deadline`)
    merges updates exactly as the graph does.
    """
    hints = get_type_hints(schema, include_extras=True)
    return {key: hint.__metadata__[-1] for key, hint in hints.items()
            if get_origin(hint) is Annotated and callable(hint.__metadata__[-1])}


class ClaimResults(TypedDict, total=False):
    """What one claim branch hands back to the top-level graph.

    A `None` value means "clear this claim's entry" (e.g. a judge failure fixed by a revise
    round); the branch keeps it, and the top-level reducer applies it.
    """

    evidence: Annotated[dict[str, list[Evidence]], merge_keeping_none]
    tool_failures: Annotated[dict[str, ToolFailure | None], merge_keeping_none]
    verdicts: Annotated[dict[str, Verdict], merge_keeping_none]
    judge_failures: Annotated[dict[str, GateFailure | None], merge_keeping_none]
    trace: Annotated[list[TraceRecord], concatenate]


class TopLevelResults(TypedDict, total=False):
    """Per-claim results merged across all branches and revise rounds."""

    evidence: Annotated[dict[str, list[Evidence]], merge_by_key]
    tool_failures: Annotated[dict[str, ToolFailure], merge_by_key]
    verdicts: Annotated[dict[str, Verdict], merge_by_key]
    judge_failures: Annotated[dict[str, GateFailure], merge_by_key]
    trace: Annotated[list[TraceRecord], concatenate]


class InputState(TypedDict):
    """What a caller passes in."""

    text: str


class OutputState(TypedDict):
    """What a caller gets back."""

    report: Report


class FactCheckState(TopLevelResults, total=False):
    """The whole state of the top-level graph; every node returns a partial one as its update."""

    text: str
    mode: str
    model: str
    source_mode: bool
    calibration: CalibrationOrigin | None
    """The calibration that rules the verdicts (`StepResources.calibration_origin`), named on the report."""
    claims: list[Claim]
    skipped: list[Skipped]
    extraction_attempts: Annotated[GateAttempts, merge_keeping_none]
    """The extraction's attempts; `extraction_gate` decides on each, and its router reads the decision."""
    extraction_failure: GateFailure | None
    input_failure: GateFailure | None
    message: str | None
    evaluation: Evaluation
    revision: int
    revise_feedback: dict[str, str]
    deadline_unfinished: Annotated[list[str], concatenate]
    """The steps the check's deadline cut off (`veracity.step_support.deadline`); empty until it passes."""
    report: Report


class ClaimInput(TypedDict):
    """What the top-level graph sends to one `check_claim` branch."""

    claim: Claim
    revision: int
    prior_evidence: NotRequired[list[Evidence] | None]
    feedback: NotRequired[str | None]
    source_mode: NotRequired[bool]


class ClaimUpdate(ClaimResults, total=False):
    """What a node of a `check_claim` branch writes: its results and the branch's working values."""

    claim_evidence: list[Evidence]
    computation: Computation | None
    judge_attempts: Annotated[GateAttempts, merge_keeping_none]
    """The judge's (or calculator's) attempts; `verdict_gate` decides on each, and its router reads the decision."""
    judge_confidence: float | None
    """The calibrated confidence of the judge's answer (offline judge and calculator), or None."""
    judge_leaning: Literal["supported", "refuted"] | None
    """The label risk control held back, when the answer is an unverifiable that leans."""
    judge_calibrated: bool
    """False for a chat model's answer with no calibration measured for that judge."""
    judge_alignment: dict[str, Any] | None
    """The offline judge's alignment of the claim with the passage it relied on (`contracts.Alignment`), or None."""


class ClaimState(ClaimInput, ClaimUpdate, total=False):
    """The state of one `check_claim` branch."""


def evidence_for(state: ClaimState) -> list[Evidence]:
    """The evidence a branch judges against: freshly gathered, or brought along by a revise round."""
    return state.get("claim_evidence") or state.get("prior_evidence") or []


"""What the tools return: pydantic models, so each tool declares an output schema and sends structured content.

A check's result is the report cut down to what an agent acts on: whether the text passed, and for
each claim its label, confidence, quote, reason and the differences the judge found. The whole report
stays readable as a resource (`report_uri`).

A tool returns its model as a finished `CallToolResult` (`tool_result`), declared as
``Annotated[CallToolResult, Model]``: FastMCP still publishes the model's schema and checks the
structured content against the model, but the SDK's low-level server does not validate it again
against the JSON schema (which costs tens of milliseconds a call, the schema being checked each time).
The schemas write an optional value as one schema with two types (`Output`): the SDK's Python client
still validates every result against the schema, at a cost that grows with its number of subschemas.
"""

from __future__ import annotations

from typing import Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

from veracity.contracts import Claim, Label, Outcome, Report, SpanDifference, Summary, Verdict


def nullable_as_type_lists(schema: JsonDict) -> None:
    """Write each optional property ``anyOf: [{type: T}, {type: null}]`` as ``type: [T, null]`` (an enum takes null).

    The same values are valid; the schema has half the subschemas to check.
    """
    properties = schema.get("properties")
    for spec in properties.values() if isinstance(properties, dict) else ():
        if not isinstance(spec, dict):
            continue
        options = spec.get("anyOf")
        if not isinstance(options, list) or len(options) != 2 or {"type": "null"} not in options:
            continue
        [other] = [option for option in options if option != {"type": "null"}]
        if not isinstance(other, dict) or not set(other) <= {"type", "enum"} or not isinstance(other.get("type"), str):
            continue
        del spec["anyOf"]
        spec["type"] = [other["type"], "null"]
        enum = other.get("enum")
        if isinstance(enum, list):
            spec["enum"] = [*enum, None]


class Output(BaseModel):
    """A tool's result, or part of one; its JSON schema writes optional values compactly (`nullable_as_type_lists`)."""

    model_config = ConfigDict(json_schema_extra=nullable_as_type_lists)


class Difference(Output):
    """One difference the judge found between the claim and the passage it compared the claim with."""

    kind: Literal["substitution", "swap", "polarity", "modality", "addition"]
    claim_words: str | None = Field(description="The claim's side; None when only the passage has it.")
    passage_words: str | None = Field(description="The passage's side; None for an addition.")
    relation: str = Field(description="How the two sides relate (antonym, cohyponym, number, none, ...).")
    changes_meaning: bool | None = Field(
        description="Whether the judge read the difference as changing the meaning; None when it did not say.")


class ClaimResult(Output):
    """One claim of the text and its verdict."""

    id: str
    text: str = Field(description="The claim, self-contained.")
    source: str = Field(description="The passage of the checked text the claim came from.")
    label: Label | None = Field(description="supported, refuted or unverifiable; None when the check left it "
                                            "without a verdict (see `problems`).")
    shown_label: str = Field(description="The label as people read it, with its confidence or lean, "
                                         "e.g. 'unverifiable, leans refuted, 0.62'.")
    confidence: float | None = Field(description="The calibrated probability that the label (or the lean) is right; "
                                                 "None for an uncalibrated judge.")
    leaning: Literal["supported", "refuted"] | None = Field(
        description="For an unverifiable verdict held back by risk control: the label it would have had.")
    quote: str | None = Field(description="The verbatim passage of the evidence the verdict rests on.")
    citation_verified: bool = Field(description="The quote was found verbatim in the evidence it cites.")
    reason: str | None = Field(description="Why the judge ruled so, in a sentence or two.")
    evidence_title: str | None = Field(description="The title of the evidence the quote comes from.")
    evidence_url: str | None = Field(description="Where that evidence is: a web address, a document path, or None.")
    differences: list[Difference] = Field(description="What differs between the claim and the passage it was "
                                                      "compared with (the offline judge's alignment).")
    corrected_claim: str | None = Field(
        description="The claim with the passage's words put back where a difference changes its meaning.")


class CheckResult(Output):
    """The outcome of one check: whether the text holds up, and each claim's verdict."""

    report_id: str = Field(description="The report's id in this session.")
    report_uri: str = Field(description="Read the whole report (evidence, trace, failures) as this resource.")
    passed: bool = Field(description="True only when every claim is supported and nothing failed.")
    ok: bool = Field(description="True when the check is sound (every claim judged, no failure); "
                                 "it does not say the text is true.")
    outcome: Outcome = Field(description="pass, fail (a claim refuted or unverifiable) or incomplete "
                                         "(something failed).")
    summary: Summary
    claims: list[ClaimResult]
    problems: list[str] = Field(description="Why the check is incomplete, if it is.")
    message: str | None = Field(description="A note for people, e.g. why there is no claim.")
    mode: str = Field(description="How the check ran, e.g. 'offline+source'.")


class Passage(Output):
    """A passage of the knowledge base."""

    title: str
    document: str | None = Field(description="The document's path as indexed (or demo:<name> for a demo note).")
    document_uri: str | None = Field(description="The document as a resource of this server.")
    text: str
    score: float | None = Field(description="Its rank score for the query (higher is closer).")


class Passages(Output):
    """The passages the knowledge base holds for a query, best first."""

    query: str
    passages: list[Passage]


class FindingResult(Output):
    """One thing `verify_report` checked again."""

    claim_id: str | None = Field(description="The claim it concerns; None for the whole report.")
    what: str
    holds: bool
    warning: bool = Field(description="It holds, but needs a reader's attention (say, an unsigned report).")


class VerifyResult(Output):
    """A saved report checked again, with no model and no search."""

    holds: bool = Field(description="True when every finding holds.")
    checks: int
    failed: int
    warnings: int
    findings: list[FindingResult]


def tool_result(output: BaseModel) -> CallToolResult:
    """`output` as a tool's result: structured content, and the same JSON as text for clients that read only text."""
    return CallToolResult(content=[TextContent(type="text", text=output.model_dump_json())],
                          structuredContent=output.model_dump(mode="json"))


def check_result(report: Report, report_id: str, report_uri: str) -> CheckResult:
    """`report` as a tool returns it, under `report_id` (readable at `report_uri`)."""
    return CheckResult(
        report_id=report_id, report_uri=report_uri, passed=report.passed, ok=report.ok, outcome=report.outcome,
        summary=report.summary, claims=[claim_result(report, claim) for claim in report.claims],
        problems=report.problems(), message=report.message, mode=report.mode,
    )


def claim_result(report: Report, claim: Claim) -> ClaimResult:
    """One claim of `report` with its verdict, its cited evidence and the judge's differences."""
    verdict = report.verdict_for(claim.id)
    evidence = report.cited_evidence(verdict)
    alignment = verdict.alignment if verdict is not None else None
    return ClaimResult(
        id=claim.id, text=claim.text, source=claim.source,
        label=verdict.label if verdict is not None else None,
        shown_label=verdict.shown_label if verdict is not None else "without a verdict",
        confidence=verdict.confidence if verdict is not None else None,
        leaning=verdict.leaning if verdict is not None else None,
        quote=verdict.quote if verdict is not None else None,
        citation_verified=verdict.citation_verified if verdict is not None else False,
        reason=verdict.reason if verdict is not None else None,
        evidence_title=(evidence.title or None) if evidence is not None else None,
        evidence_url=evidence.url if evidence is not None else None,
        differences=differences(verdict),
        corrected_claim=alignment.corrected_claim if alignment is not None else None,
    )


def differences(verdict: Verdict | None) -> list[Difference]:
    """The differences the judge's alignment holds for `verdict` (none without an alignment)."""
    if verdict is None or verdict.alignment is None:
        return []
    threshold = verdict.alignment.changing_threshold
    return [_difference(found, threshold) for found in verdict.alignment.differences]


def _difference(found: SpanDifference, threshold: float) -> Difference:
    return Difference(
        kind=found.kind, claim_words=found.claim.text if found.claim is not None else None,
        passage_words=found.passage.text if found.passage is not None else None, relation=found.relation,
        changes_meaning=found.changing >= threshold if found.changing is not None else None,
    )

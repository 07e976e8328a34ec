"""Pydantic contracts: what the models must return, and what a check reports.

Two kinds of model live here:

* **LLM contracts** (`ExtractionOutput`, `JudgeOutput`): the shapes a chat model is
  asked to fill. Gate nodes validate raw model payloads against them.
* **Report contracts** (`Claim`, `Evidence`, `Verdict`, failures, `TraceRecord`,
  `Evaluation`, `Report`): the typed result of a check, serialisable to JSON.
"""

from __future__ import annotations

import datetime
import math
from decimal import ROUND_FLOOR, Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, computed_field, model_validator

from veracity.errors import ToolErrorKind

Label = Literal["supported", "refuted", "unverifiable"]
"""The three verdicts a claim can receive."""

LABELS: tuple[Label, ...] = ("supported", "refuted", "unverifiable")

NonBlank = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


# --------------------------------------------------------------------------- LLM contracts


def rounded_down(value: float, places: int = 2) -> str:
    """`value` written with `places` decimals, rounded down: 0.9388 gives '0.93', 0.29 stays '0.29'.

    The digits are cut from the number as Python writes it (its shortest repr), not from
    `value * 10 ** places`, whose float error would turn 0.29 into '0.28'.
    """
    if not math.isfinite(value):
        return str(value)
    cut = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_FLOOR)
    return f"{cut:.{places}f}"


def confidence_text(confidence: float) -> str:
    """How every surface writes a verdict's confidence: two decimals, rounded down ('0.9388' and '0.935' give '0.93').

    Rounded down, never to the nearest, so that a confidence never reads higher than it is: a
    held-back verdict's never reaches the threshold it missed, and no verdict overstates its
    calibration. The command line, the Markdown reports, `Guard` and the web page all show it
    through `Verdict.shown_label`, which reports carry (the server sends it; the page does no rounding
    of its own).
    """
    return rounded_down(confidence, 2)


class ExtractedClaim(BaseModel):
    """One atomic claim as the extraction model returns it."""

    model_config = ConfigDict(extra="forbid")

    claim: NonBlank = Field(
        description="A single, self-contained factual statement with pronouns resolved."
    )
    source: NonBlank = Field(
        description="The exact, contiguous passage of the input text this claim comes from, copied verbatim."
    )
    counter_query: str | None = Field(
        default=None, description="A short web search query that would find evidence the claim is false: a "
                                  "correction, a fact-check, or the true value.",
    )


SkipReason = Literal["courtesy", "question", "opinion", "prediction"]
"""Why a statement is not a checkable claim: courtesy, a question, a value judgement, or a forecast."""

SKIP_REASONS: dict[SkipReason, str] = {
    "courtesy": "courtesy, not a claim",
    "question": "a question, not a statement",
    "opinion": "an opinion or value judgement, not a checkable fact",
    "prediction": "a prediction about the future, not yet checkable",
}


class SkippedStatement(BaseModel):
    """A statement the extraction model left out because it is not a checkable fact."""

    model_config = ConfigDict(extra="forbid")

    source: NonBlank = Field(description="The statement, copied verbatim from the text.")
    reason: SkipReason = Field(
        description="courtesy (greetings, thanks, offers of help, empathy), question, opinion (incl. value "
                    "judgements) or prediction."
    )


class ExtractionOutput(BaseModel):
    """The extraction model's whole answer: a list of atomic claims (possibly empty)."""

    model_config = ConfigDict(extra="forbid")

    claims: list[ExtractedClaim] = Field(
        description="Atomic factual claims found in the text; empty if there are none."
    )
    skipped: list[SkippedStatement] = Field(
        default_factory=list,
        description="Courtesy, questions, opinions and predictions found in the text, which are not checked.",
    )


class JudgeOutput(BaseModel):
    """The judge model's ruling on one claim."""

    model_config = ConfigDict(extra="forbid")

    label: Label = Field(description="supported, refuted or unverifiable.")
    reason: NonBlank = Field(description="One or two sentences explaining the ruling.")
    evidence_id: str | None = Field(
        default=None,
        description="Id of the evidence item relied on; required unless the label is unverifiable.",
    )
    quote: str | None = Field(
        default=None,
        description="A verbatim passage copied from that evidence item; required unless unverifiable.",
    )


# --------------------------------------------------------------------------- report contracts


class Claim(BaseModel):
    """An atomic claim extracted from the input text."""

    id: str = Field(description="Stable id within the report, e.g. 'c1'.")
    text: str = Field(description="The self-contained claim.")
    source: str = Field(description="The passage of the input the claim came from.")
    span: tuple[int, int] = Field(
        description="Character offsets [start, end) of `source` in the input text."
    )
    counter_query: str | None = Field(
        default=None, description="The extraction model's query for evidence against the claim; None: the "
                                  "counter-evidence template is used.",
    )


class Skipped(BaseModel):
    """A statement of the text that was not checked, with where it is and why."""

    source: str = Field(description="The statement as it stands in the text.")
    span: tuple[int, int] = Field(description="Character offsets [start, end) of `source` in the input text.")
    reason: SkipReason
    message: str = Field(description="The reason in words, e.g. 'an opinion or value judgement, not a checkable fact'.")


class SearchHit(BaseModel):
    """A raw result from an evidence backend, before it is given an id."""

    title: str = ""
    url: str | None = None
    text: NonBlank
    score: float | None = None


class Evidence(BaseModel):
    """One piece of evidence retrieved for a claim."""

    id: str = Field(description="Unique within the report, e.g. 'c1-e2'.")
    claim_id: str
    title: str = ""
    url: str | None = None
    text: str
    backend: str = Field(description="Name of the backend that returned it, e.g. 'web'.")
    score: float | None = None
    found_by: Literal["claim", "counter"] = Field(
        default="claim", description="Which search found it: the claim itself, or the query looking for "
                                     "evidence against it.")


class ComputedInput(BaseModel):
    """One value a computation used: the evidence sentence it was read from, and the value as written there."""

    evidence_id: str
    quote: str = Field(description="The evidence sentence the value was read from, verbatim.")
    value: str = Field(description="The value as the evidence writes it, e.g. '28 October 1886'.")


class Computation(BaseModel):
    """How a computed verdict was reached: the steps as text, the inputs it read, and the date used as today."""

    text: str = Field(description="The computation, e.g. 'dedicated 28 October 1886 → today 2026-11-24 = 140 "
                      "years; > 100: holds'.")
    inputs: list[ComputedInput] = Field(
        default_factory=list, description="Where each value came from; empty for plain arithmetic."
    )
    today: datetime.date | None = Field(default=None, description="Today's date as used (from the system clock).")


PageOutcome = Literal["verified_live", "verified_fragment", "partial", "not_found", "fetch_failed"]
"""What checking a verdict's quote on its cited page came to."""
PAGE_VERIFIED: frozenset[str] = frozenset({"verified_live", "verified_fragment"})
"""Page outcomes that confirm the quote."""


class AlignedSpan(BaseModel):
    """A span of the claim or of the passage, with its character offsets `[start, end)` in that text.

    A swap's span covers both swapped words and its text names just the two, joined by "…".
    """

    text: str
    start: int
    end: int


class AlignedMatch(BaseModel):
    """A claim span and the passage span that says the same, and how they relate."""

    claim: AlignedSpan
    passage: AlignedSpan
    relation: str = Field(description="same, synonym, hypernym, derived, equal (numbers), paraphrase or hyponym.")


class SpanDifference(BaseModel):
    """What differs between the claim and the passage it lines up with, and whether it changes the meaning."""

    kind: Literal["substitution", "swap", "polarity", "modality", "addition"]
    claim: AlignedSpan | None = Field(default=None, description="The claim's side; None when only the passage has it.")
    passage: AlignedSpan | None = Field(default=None, description="The passage's side; None for an addition.")
    relation: str = Field(description="The lexical relation of the two sides (antonym, cohyponym, number, none, ...).")
    span_kind: Literal["number", "name", "word", "negation", "modal"]
    changing: float | None = Field(default=None, description="P(the difference changes the meaning).")


class Alignment(BaseModel):
    """The offline judge's alignment of a claim with the passage it relied on: matches and differences."""

    passage: str = Field(description="The passage the claim was aligned with (a quotable slice of the evidence).")
    coverage: float = Field(description="The share of the claim's content the passage matches.")
    filled: float = Field(
        default=0.0, description="The share of the claim's content the passage matches or fills with other words.")
    matches: list[AlignedMatch] = Field(default_factory=list)
    differences: list[SpanDifference] = Field(default_factory=list)
    changing_threshold: float = Field(
        default=0.5, description="P(changing) at or above which a difference is read as changing the meaning.")
    corrected_claim: str | None = Field(
        default=None, description="The claim with the passage's words put back where a difference changes its meaning.")


class PageCheck(BaseModel):
    """The cited web page, fetched after the judge: is the verdict's quote on it?"""

    outcome: PageOutcome
    url: str = Field(description="The cited URL.")
    final_url: str | None = Field(default=None, description="Where redirects ended, when the page was fetched.")
    source: Literal["live", "archive"] = Field(
        default="live", description="'archive' when the live page failed and the archive copy was read instead.")
    snapshot: str | None = Field(
        default=None, description="File name of the page as read, kept in the snapshots folder (named by its hash).")
    quote_share: float = Field(default=0.0, description="Share of the quote's words found in order on the page.")
    sha256: str | None = Field(default=None, description="SHA-256 of the page bytes read.")
    excerpt: str | None = Field(default=None, description="The page text around the quote, as fetched.")
    truncated: bool = Field(default=False, description="The page was over the size cap; only its start was read.")
    checked_at: str = Field(description="When the page was fetched (UTC, ISO 8601).")
    reason: str = Field(description="What the check found, for people.")

    @property
    def verified(self) -> bool:
        """Whether the page confirms the quote."""
        return self.outcome in PAGE_VERIFIED


class Verdict(BaseModel):
    """The judgement on one claim, with its mechanically checked citation."""

    claim_id: str
    label: Label
    reason: str
    evidence_id: str | None = None
    quote: str | None = None
    citation_verified: bool = Field(
        default=False,
        description="True when `quote` was found verbatim in the cited evidence retrieved for this claim.",
    )
    attempts: int = Field(default=1, description="Judge attempts used in the round that produced it.")
    revision: int = Field(default=0, description="0 for the first pass, n for the n-th revision.")
    downgraded: bool = Field(
        default=False, description="True when the gate forced the verdict to unverifiable."
    )
    support_score: float | None = Field(
        default=None,
        description="Max cosine similarity of the claim against any evidence sentence (None: no evidence).",
    )
    computation: Computation | None = Field(
        default=None, description="Set when the verdict was computed (dates, measures, arithmetic), not read."
    )
    page: PageCheck | None = Field(
        default=None, description="Web verdicts: the cited page fetched and the quote looked for on it."
    )
    single_source: str | None = Field(
        default=None, description="A supported web verdict whose evidence all comes from one site: that site."
    )
    confidence: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="The calibrated probability that the label is right (for an unverifiable verdict that leans, "
                    "that its lean is right). Set by the offline judge, the calculator, and a chat model calibrated by "
                    "`veracity calibrate`; None for an uncalibrated chat model's verdict or one reached without "
                    "judging (no evidence, a failed search).",
    )
    leaning: Literal["supported", "refuted"] | None = Field(
        default=None,
        description="An unverifiable verdict held back by risk control: the label it would have had. A lean never "
                    "makes a text pass.",
    )
    alignment: Alignment | None = Field(
        default=None, description="The offline judge's alignment of the claim with the passage it was compared with: "
                                  "what matches, what differs, and the corrected claim where one is proposed.",
    )
    uncalibrated: bool = Field(
        default=False,
        description="A chat model's verdict with no calibration measured for that judge (`veracity calibrate`): "
                    "its label is the model's own, with no confidence and no risk control.",
    )

    @computed_field(  # type: ignore[prop-decorator]  # pydantic's documented form; mypy cannot see through it
        description="The label as people read it, with the confidence as `confidence_text` writes it (e.g. "
                    "'unverifiable, leans refuted, 0.93'); derived from the fields above."
    )
    @property
    def shown_label(self) -> str:
        """The label as people should read it.

        A decisive web verdict whose page check failed says so; an unverifiable verdict that leans
        says which way and how confidently ("unverifiable, leans refuted, 0.62"); a verdict with a
        calibrated confidence gives it ("supported, 0.94"); a chat model's verdict with no calibration
        says so ("supported, uncalibrated"). The confidence is `confidence_text`'s (rounded down).
        """
        if self.page is not None and not self.page.verified and self.label != "unverifiable":
            return f"{self.label} (citation not verified on the page)"
        if self.uncalibrated:
            return f"{self.label}, uncalibrated"
        confidence = f", {confidence_text(self.confidence)}" if self.confidence is not None else ""
        if self.label == "unverifiable" and self.leaning is not None:
            return f"unverifiable, leans {self.leaning}{confidence}"
        return f"{self.label}{confidence}"


class GateFailure(BaseModel):
    """A model output that never passed its gate within the attempt cap."""

    kind: Literal["gate"] = "gate"
    step: Literal["input", "extract", "judge"]
    claim_id: str | None = None
    attempts: int
    errors: list[str] = Field(description="The validation error of each failed attempt, in order.")
    message: str


class ToolFailure(BaseModel):
    """An evidence backend call that failed after its retries."""

    kind: Literal["tool"] = "tool"
    step: Literal["gather_evidence"] = "gather_evidence"
    claim_id: str
    backend: str
    error: ToolErrorKind
    attempts: int
    message: str


class DeadlineFailure(BaseModel):
    """The check reached its total deadline (`Context.check_deadline`) before it finished."""

    kind: Literal["deadline"] = "deadline"
    step: Literal["check"] = "check"
    seconds: float = Field(description="The deadline that passed.")
    unfinished: list[str] = Field(default_factory=list, description="Graph nodes still running at the deadline.")
    claims_not_judged: list[str] = Field(
        default_factory=list, description="Claims left unverifiable because their verdict had not arrived.")
    message: str


Failure = Annotated[GateFailure | ToolFailure | DeadlineFailure, Field(discriminator="kind")]
"""Any typed failure recorded on a report."""


class EvaluationIssue(BaseModel):
    """One rule the report broke."""

    code: Literal[
        "missing_verdict",
        "orphan_verdict",
        "unverified_citation",
        "judge_gate_failure",
        "evidence_search_failed",
        "extraction_failed",
        "input_rejected",
        "unsupported_by_source",
        "deadline_exceeded",
        "citation_not_on_page",
    ]
    claim_id: str | None = None
    message: str
    revisable: bool = Field(description="Whether re-judging the claim could fix it.")


class Evaluation(BaseModel):
    """Rule-based evaluation of the whole report: the issues the report's rules found.

    Whether the text passes is `Report.passed`, and whether the check is sound is `Report.ok`
    (`sound` here); the evaluation itself carries no pass/fail field, so nothing in a report can
    say "passed" of a text that fails. A report written before this still reads: its
    ``evaluation.passed`` (which meant `sound`) is ignored.
    """

    issues: list[EvaluationIssue] = Field(default_factory=list)

    @property
    def sound(self) -> bool:
        """True when the rules found no issue: every claim has a verdict with a verified citation, nothing failed."""
        return not self.issues


StructuredMethod = Literal["json_schema", "tools", "provider", "prompt"]
"""How a model answer was asked for ('provider': the integration's default structured output)."""

TraceOutcome = Literal["ok", "retry", "failed", "skipped", "downgraded"]
"""How one step of one attempt ended ('retry' and 'downgraded' are a gate's or a search's)."""


class TraceRecord(BaseModel):
    """One step of one attempt, as recorded by the graph."""

    step: str
    claim_id: str | None = None
    attempt: int = 1
    outcome: TraceOutcome
    reason: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    cache: Literal["hit", "miss"] | None = None
    """For a model call or web search: answered from the cache ('hit'), or made and then kept ('miss')."""
    structured: StructuredMethod | None = None
    """For a model call: how its JSON was asked for (a schema the server enforces, a tool call, the provider's
    default structured output, or the prompt alone)."""
    logprob: float | None = None
    """For a model call whose endpoint returned token log-probabilities: their mean over the answer."""


class Summary(BaseModel):
    """Counts of claims and verdicts in a report."""

    claims: int = 0
    supported: int = 0
    refuted: int = 0
    unverifiable: int = 0
    failures: int = 0


FINDING_CODES = frozenset({"unsupported_by_source"})
"""Evaluation issues that are findings about the text, not failures of the check."""

Outcome = Literal["pass", "fail", "incomplete"]
"""What a finished report amounts to: the text passes, fails, or the check is incomplete."""

RiskLevel = Literal["LOW", "MEDIUM", "HIGH"]
"""Hallucination risk bands of `reliability_score`: LOW >= 0.80, MEDIUM >= 0.60, HIGH below."""

CalibrationKind = Literal["shipped", "user"]
"""Where a calibration came from: shipped inside veracity (the offline judge's), or written by `veracity calibrate`."""


class CalibrationOrigin(BaseModel):
    """The calibration file that gave a report's verdicts their confidences and thresholds."""

    path: str = Field(description="The file: a user's as it was read, the shipped one as its place in the installed "
                                  "package ('veracity/offline/assets/calibration/confidence.json').")
    origin: CalibrationKind = Field(description="'shipped' (the offline judge's own) or 'user' (written by "
                                                "`veracity calibrate`).")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the file's bytes as the check read them; "
                                                                "`veracity verify` compares it with the file.")
    judge: str = Field(description="The judge the calibration was measured for, in words.")


class Report(BaseModel):
    """The result of checking one text."""

    text: str
    claims: list[Claim] = Field(default_factory=list)
    skipped: list[Skipped] = Field(
        default_factory=list,
        description="Statements not checked (courtesy, questions, opinions, predictions); they do not affect `passed`.",
    )
    verdicts: list[Verdict] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    failures: list[Failure] = Field(default_factory=list)
    evaluation: Evaluation
    trace: list[TraceRecord] = Field(default_factory=list)
    ok: bool = Field(
        description="True when the check is sound: every claim has a verdict with a verified citation (or an honest "
        "unverifiable) and no search or gate failure is left. It does not say the text is true; see `passed`."
    )
    summary: Summary
    tokens_in: int = 0
    tokens_out: int = 0
    revisions: int = Field(default=0, description="How many revise rounds ran.")
    mode: str = Field(default="", description="How the check ran, e.g. 'llm+web' or 'offline+kb'.")
    model: str = Field(default="", description="The model that extracted and judged: its name, or 'offline'.")
    judge_version: str | None = Field(
        default=None, description="For an offline check, the offline judge's version (`veracity verify` re-judges "
                                  "with it); None when a chat model judged.")
    calibration: CalibrationOrigin | None = Field(
        default=None, description="The calibration that ruled the verdicts (confidences, and the thresholds that hold "
                                  "uncertain ones back): which file, where from, its SHA-256 and its judge. None "
                                  "when a chat model judged uncalibrated, or in a report written before it was "
                                  "recorded.")
    evidence_coverage: float | None = Field(
        default=None, description="Supported claims / all claims (a heuristic; refuted claims lower it)."
    )
    average_similarity: float | None = Field(
        default=None, description="Mean support_score over claims (0 for a claim without evidence)."
    )
    reliability_score: float | None = Field(
        default=None,
        description="0.6 x evidence_coverage + 0.4 x average_similarity (a heuristic summary, not a probability; "
                    "earlier reports named it confidence_score). A verdict's own `confidence` is the calibrated one.",
    )
    hallucination_risk: RiskLevel | None = Field(
        default=None, description="LOW at reliability_score >= 0.80, MEDIUM at 0.60-0.79, HIGH below; HIGH with no "
                                  "evidence.",
    )
    unsupported_claims: list[str] = Field(
        default_factory=list, description="Texts of the claims not judged supported."
    )
    message: str | None = Field(default=None, description="A note for people, e.g. why there are no claims.")

    @model_validator(mode="before")
    @classmethod
    def _read_earlier_names(cls, data: object) -> object:
        """Reports written before `reliability_score` was named so carry it as ``confidence_score``."""
        if isinstance(data, dict) and "confidence_score" in data and "reliability_score" not in data:
            data = {("reliability_score" if key == "confidence_score" else key): value for key, value in data.items()}
        return data

    def verdict_for(self, claim_id: str) -> Verdict | None:
        """Return the verdict for `claim_id`, or None when it has none."""
        return next((v for v in self.verdicts if v.claim_id == claim_id), None)

    def evidence_by_id(self, evidence_id: str) -> Evidence | None:
        """Return the evidence item with this id, or None."""
        return next((e for e in self.evidence if e.id == evidence_id), None)

    def cited_evidence(self, verdict: Verdict | None) -> Evidence | None:
        """The evidence item `verdict` cites, or None (no verdict, or a verdict citing nothing)."""
        return self.evidence_by_id(verdict.evidence_id) if verdict is not None and verdict.evidence_id else None

    def problems(self) -> list[str]:
        """Why the check is incomplete: its typed failures and the evaluation issues that are not findings."""
        messages = [failure.message for failure in self.failures]
        messages += [issue.message for issue in self.evaluation.issues if issue.code not in FINDING_CODES]
        return list(dict.fromkeys(messages))

    @computed_field(  # type: ignore[prop-decorator]  # pydantic's documented form; mypy cannot see through it
        description="True only when the text holds up: every claim is supported and nothing failed "
        "(a text with no checkable claim passes). A refuted or unverifiable claim fails it."
    )
    @property
    def passed(self) -> bool:
        """True only when every claim is supported and nothing failed; `ok` only says the check is sound."""
        return self.outcome == "pass"

    @property
    def outcome(self) -> Outcome:
        """'incomplete' when anything failed; else 'fail' when a claim is refuted or unverifiable; else 'pass'."""
        if self.problems():
            return "incomplete"
        if self.summary.refuted or self.summary.unverifiable:
            return "fail"
        return "pass"

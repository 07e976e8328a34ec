"""The two Markdown artefacts of a check: `report_markdown` for readers, `audit_markdown` for auditors."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib.metadata import version

from veracity.contracts import Claim, Report, TraceRecord, Verdict
from veracity.evidence.counter import TRACE_PREFIX, counter_query
from veracity.report_text import counts_line
from veracity.step_support.names import GATHER_EVIDENCE, VERDICT_GATE


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def report_markdown(report: Report) -> str:
    """Verdicts with their quotes, sources and computations, and the summary."""
    lines = ["# Fact-check report", "", f"{counts_line(report.summary)}. Outcome: **{report.outcome}**.", "",
             "| verdict | claim | quote or reason | source |", "|---|---|---|---|"]
    for claim in report.claims:
        verdict = report.verdict_for(claim.id)
        if verdict is None:
            lines.append(f"| missing | {_cell(claim.text)} | | |")
            continue
        cited = report.cited_evidence(verdict)
        said = f"“{verdict.quote}”" if verdict.quote and verdict.label != "unverifiable" else verdict.reason
        if verdict.computation is not None:
            said += f" (computed: {verdict.computation.text})"
        source = " ".join(part for part in ((cited.title, cited.url) if cited else ()) if part)
        lines.append(f"| {verdict.shown_label} | {_cell(claim.text)} | {_cell(said)} | {_cell(source)} |")
    if report.message:
        lines += ["", report.message]
    lines += skipped_section(report)
    problems = report.problems()
    if problems:
        lines += ["", "## What could not be checked", "", *(f"- {problem}" for problem in problems)]
    return "\n".join(lines) + "\n"


def audit_markdown(report: Report, *, written_at: str | None = None) -> str:
    """Per claim: searches, evidence, the deciding passage, the page check, retries; then how the check ran."""
    written_at = written_at or datetime.now(UTC).isoformat(timespec="seconds")
    lines = ["# Audit trail", "",
             f"- veracity {version('veracity')}, model `{report.model or 'unknown'}`, mode `{report.mode}`, "
             f"written {written_at}",
             f"- outcome: {report.outcome}; revise rounds: {report.revisions}; "
             f"tokens in/out: {report.tokens_in}/{report.tokens_out}",
             f"- calibration: {calibration_line(report)}", ""]
    for claim in report.claims:
        lines += _claim_section(report, claim)
    if report.skipped:
        lines += [*skipped_section(report)[1:], ""]
    if report.failures:
        lines += ["## Failures", "", *(f"- {failure.kind}: {failure.message}" for failure in report.failures), ""]
    return "\n".join(lines)


def calibration_line(report: Report) -> str:
    """Which calibration ruled the verdicts, in words: its origin, file, digest and judge; or none."""
    calibration = report.calibration
    if calibration is None:
        return "none recorded (a chat model judged uncalibrated, or the report predates the record)"
    return (f"{calibration.origin} file `{calibration.path}` (sha256 {calibration.sha256[:12]}), measured for "
            f"{calibration.judge}")


def skipped_section(report: Report) -> list[str]:
    """A blank line and a "Not checked" section: each skipped statement, where it is, and why; none if nothing was."""
    if not report.skipped:
        return []
    lines = ["", "## Not checked", "", "Statements that are not checkable claims; they do not change the outcome.", ""]
    for statement in report.skipped:
        start, end = statement.span
        lines.append(f"- **{statement.reason}**: “{_cell(statement.source)}” (characters {start}-{end}): "
                     f"{statement.message}")
    return lines


def _claim_section(report: Report, claim: Claim) -> list[str]:
    verdict = report.verdict_for(claim.id)
    records = [record for record in report.trace if record.claim_id == claim.id]
    searches = [record for record in records if record.step == GATHER_EVIDENCE]
    lines = [f"## {claim.id}: {claim.text}", "", f"Said as: “{claim.source}”", "", "Searches:"]
    own = [record for record in searches if not (record.reason or "").startswith(TRACE_PREFIX)]
    counter = [record for record in searches if (record.reason or "").startswith(TRACE_PREFIX)]
    lines.append(f"- the claim: “{claim.text}” ({_attempts(own)})" if own
                 else "- none (computed, or evidence carried over)")
    if counter:
        by = "written by the model" if claim.counter_query else "from the template"
        lines.append(f"- against it ({by}): “{claim.counter_query or counter_query(claim.text)}” "
                     f"({_attempts(counter)})")
    evidence = [item for item in report.evidence if item.claim_id == claim.id]
    lines += ["", "Evidence considered:" if evidence else "No evidence was considered."]
    for item in evidence:
        found = "search against the claim" if item.found_by == "counter" else "search for the claim"
        lines.append(f"- `{item.id}` {item.title or '(untitled)'} {item.url or ''} (from the {found}, "
                     f"{item.backend})".replace("  ", " "))
    lines += ["", *_decision(report, verdict)]
    retries = [record for record in records if record.step == VERDICT_GATE and record.outcome != "ok"]
    if retries:
        lines += ["", "Judge retries:", *(f"- attempt {r.attempt}: {r.outcome}: {r.reason}" for r in retries)]
    return [*lines, ""]


def _attempts(records: list[TraceRecord]) -> str:
    """How a search went, from its trace records (at least one)."""
    cached = " (answered from the cache)" if records[-1].cache == "hit" else ""
    return f"{len(records)} attempt(s), last {records[-1].outcome}: {records[-1].reason}{cached}"


def _decision(report: Report, verdict: Verdict | None) -> list[str]:
    if verdict is None:
        return ["Verdict: missing."]
    lines = [f"Verdict: **{verdict.shown_label}** after {verdict.attempts} judge attempt(s). Why: {verdict.reason}"]
    cited = report.cited_evidence(verdict)
    if cited is not None and verdict.quote:
        lines.append(f"Deciding passage: `{cited.id}`, quote “{verdict.quote}” "
                     f"({'verified in the evidence' if verdict.citation_verified else 'not verified'}).")
    if verdict.computation is not None:
        lines.append(f"Computed: {verdict.computation.text}")
    if verdict.single_source:
        lines.append(f"Single source: all of the claim's web evidence is from {verdict.single_source}.")
    if verdict.page is not None:
        page = verdict.page
        lines.append(f"Page check ({page.source}, {page.checked_at}): {page.outcome}: {page.reason}; "
                     f"sha256 {page.sha256 or '-'}" + (f"; snapshot {page.snapshot}" if page.snapshot else ""))
    return lines

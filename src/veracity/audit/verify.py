"""Re-check a saved report without a model or a search: quotes, computations, counts, and optionally pages.

Everything a verdict claims to rest on is in the report: the quote and the evidence it cites,
the inputs and date of a computation, the hash of the page it was read from. `verify_report`
checks each again:

* every quote of a supported or refuted verdict occurs in the evidence item it cites;
* every computation gives the same label and the same steps when run again on the stored
  evidence and date;
* the summary counts match the verdicts;
* with a snapshots folder, each kept page still has its recorded hash and still carries the
  quote; with `live`, each cited page is fetched again and must still carry it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from veracity.calculator import calculate
from veracity.citations import quote_problem
from veracity.contracts import PAGE_VERIFIED, Report, Verdict
from veracity.nodes.calculate import computation_of
from veracity.pages import FetchSettings, check_page, examine_page


@dataclass(frozen=True)
class Finding:
    """One thing checked: what, about which claim, and whether it still holds."""

    claim_id: str | None
    what: str
    holds: bool


async def verify_report(report: Report, *, snapshots: Path | None = None, live: bool = False,
                        settings: FetchSettings | None = None) -> list[Finding]:
    """Every finding for `report`; none holds false when the report is intact (and its pages unchanged)."""
    findings = [_counts(report)]
    for verdict in report.verdicts:
        findings += _verdict_findings(report, verdict, snapshots)
        if live and verdict.page is not None:
            findings.append(await _live(report, verdict, settings or FetchSettings()))
    return findings


def _counts(report: Report) -> Finding:
    labels = [verdict.label for verdict in report.verdicts]
    summary = report.summary
    counted = (summary.supported, summary.refuted, summary.unverifiable)
    actual = (labels.count("supported"), labels.count("refuted"), labels.count("unverifiable"))
    what = (f"summary counts match the verdicts ({actual[0]} supported, {actual[1]} refuted, {actual[2]} unverifiable)"
            if counted == actual else f"summary says {counted} supported/refuted/unverifiable, the verdicts {actual}")
    return Finding(None, what, counted == actual)


def _verdict_findings(report: Report, verdict: Verdict, snapshots: Path | None) -> list[Finding]:
    found: list[Finding] = []
    claim = next((c for c in report.claims if c.id == verdict.claim_id), None)
    if claim is None:
        return [Finding(verdict.claim_id, "the verdict's claim is not in the report", False)]
    cited = report.cited_evidence(verdict)
    if verdict.label != "unverifiable" and verdict.quote:
        if cited is None:
            found.append(Finding(claim.id, f"cited evidence {verdict.evidence_id!r} is not in the report", False))
        else:
            problem = quote_problem(verdict.quote, cited.text)
            found.append(Finding(claim.id, f"quote is in {cited.id}" if problem is None
                                 else f"{problem} ({cited.id})", problem is None))
    if verdict.computation is not None and verdict.computation.today is not None:
        evidence = [item for item in report.evidence if item.claim_id == claim.id]
        try:
            answer = calculate(claim.text, evidence, verdict.computation.today)
        except Exception as error:  # a report that crashes the calculator does not hold
            return [*found, Finding(claim.id, f"computation cannot be run again: {type(error).__name__}", False)]
        again = computation_of(answer) if answer is not None else None
        same = answer is not None and answer.label == verdict.label and again is not None \
            and again.text == verdict.computation.text
        found.append(Finding(claim.id, "computation gives the same result when run again" if same else
                             f"computation run again gives {answer.label + ': ' + answer.text if answer else 'nothing'}"
                             f", not {verdict.label}: {verdict.computation.text}", same))
    if snapshots is not None and verdict.page is not None and verdict.page.snapshot:
        found.append(_snapshot(claim.id, claim.text, verdict, snapshots / verdict.page.snapshot))
    return found


def _snapshot(claim_id: str, claim_text: str, verdict: Verdict, path: Path) -> Finding:
    page = verdict.page
    assert page is not None
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Finding(claim_id, f"snapshot {path.name} cannot be read: {exc.strerror or exc}", False)
    if hashlib.sha256(raw).hexdigest() != page.sha256:
        return Finding(claim_id, f"snapshot {path.name} does not match its recorded hash", False)
    content_type = "text/plain" if path.suffix == ".txt" else "text/html"
    outcome, *_ = examine_page(claim_text, verdict, raw.decode("utf-8", "replace"), content_type)
    holds = outcome in PAGE_VERIFIED
    return Finding(claim_id, f"snapshot {path.name} carries the quote ({outcome})" if holds
                   else f"snapshot {path.name} does not carry the quote ({outcome})", holds)


async def _live(report: Report, verdict: Verdict, settings: FetchSettings) -> Finding:
    page = verdict.page
    assert page is not None
    claim = next(c for c in report.claims if c.id == verdict.claim_id)
    again = await check_page(claim.text, verdict, page.url, settings)
    holds = again.verified
    return Finding(claim.id, f"live page {page.url}: {again.outcome}: {again.reason}", holds)

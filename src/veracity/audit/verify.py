"""Re-check a saved report without a model or a search: structure, quotes, computations, judgements, pages.

Everything a verdict claims to rest on is in the report: the quote and the evidence it cites,
the inputs and date of a computation, the hash of the page it was read from. `verify_report`
checks each again:

* the report is whole and consistent (`structure`): one verdict per claim, and the counts,
  evaluation, `ok`, `passed` and reliability scores as the project's own rules compute them;
* every supported or refuted verdict has a quote that occurs in the evidence item it cites
  (plain arithmetic, which cites nothing, is computed again from the claim instead), and so
  does every unverifiable verdict that carries a quote (the closest passage a held-back
  verdict shows);
* every computation gives the same label and the same steps when run again on the stored
  evidence and date;
* an offline report's judged verdicts come out the same from the offline judge (`rejudge`);
* the calibration file the report names still has the digest it records (`calibration`);
* with a snapshots folder, each kept page still has its recorded hash and still carries the
  quote; with `live`, each cited page is fetched again and must still carry it.

The signature of a written report is checked apart, by `signing.check_signature`.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import json
from pathlib import Path

from veracity.audit.calibration import calibration_findings
from veracity.audit.findings import Finding
from veracity.audit.rejudge import rejudge_findings
from veracity.audit.structure import evidence_by_claim, structure_findings
from veracity.calculator import calculate
from veracity.calculator.plugin import ShippedCalculator, computation_of
from veracity.citations import quote_problem
from veracity.contracts import PAGE_VERIFIED, Claim, Evidence, Report, Verdict
from veracity.nodes.evaluate import decisive_problem
from veracity.pages import FetchSettings, check_page, examine_page
from veracity.pages.body import decode_page
from veracity.user_files import FileRefused, name_inside, read_regular_file

__all__ = ["MAX_REPORT_BYTES", "MAX_SNAPSHOT_BYTES", "Finding", "verify_report"]

MAX_REPORT_BYTES = 512_000_000
"""A report file larger than this is refused, not read (by `veracity verify` and the MCP `verify_report` tool)."""

MAX_SNAPSHOT_BYTES = 64_000_000
"""A kept page larger than this is refused, not read (pages are cut at 5 MB when fetched by default)."""


async def verify_report(report: Report, *, raw: bytes | None = None, snapshots: Path | None = None,
                        live: bool = False, settings: FetchSettings | None = None,
                        rejudge: bool = True) -> list[Finding]:
    """Every finding for `report`; none holds false when the report is intact (and its pages unchanged).

    `raw` is the report file as read: given, the file must hold nothing but the report (a field
    the model would ignore, such as an edited ``passed``, shows). With `rejudge`, an offline
    report's judged verdicts are judged again and its support scores computed again.
    """
    written = json.loads(raw) if raw is not None else None
    findings = await asyncio.to_thread(structure_findings, report, written, scores=rejudge)
    claims = {claim.id: claim for claim in report.claims}
    evidence = evidence_by_claim(report)
    for verdict in report.verdicts:
        claim = claims.get(verdict.claim_id)
        if claim is None:
            continue  # already a failure of the report's structure
        findings += _verdict_findings(claim, verdict, evidence.get(claim.id, []), snapshots)
        if live and verdict.page is not None:
            findings.append(await _live(claim, verdict, settings or FetchSettings()))
    findings += await asyncio.to_thread(calibration_findings, report)
    if rejudge:
        findings += await asyncio.to_thread(rejudge_findings, report)
    return findings


def _verdict_findings(claim: Claim, verdict: Verdict, evidence: list[Evidence],
                      snapshots: Path | None) -> list[Finding]:
    found: list[Finding] = []
    if verdict.label != "unverifiable":
        found.append(_citation(claim, verdict, evidence))
    elif (held := _held_back_citation(claim, verdict, evidence)) is not None:
        found.append(held)
    if verdict.computation is not None:
        found.append(_computation(claim, verdict, evidence))
    if snapshots is not None and verdict.page is not None and verdict.page.snapshot:
        found.append(_snapshot(claim, verdict, snapshots))
    return found


def _citation(claim: Claim, verdict: Verdict, evidence: list[Evidence]) -> Finding:
    """A decisive verdict's citation, by the rule the check itself applied (`decisive_problem`)."""
    problem = decisive_problem(claim, verdict, evidence, ShippedCalculator())
    arithmetic = verdict.computation is not None and not verdict.computation.inputs
    if problem is not None:
        return Finding(claim.id, f"{verdict.label}, but {problem}", False)
    if arithmetic:
        return Finding(claim.id, "arithmetic gives the same label when computed again from the claim", True)
    return Finding(claim.id, f"quote is in {verdict.evidence_id}", True)


def _held_back_citation(claim: Claim, verdict: Verdict, evidence: list[Evidence]) -> Finding | None:
    """An unverifiable verdict's citation, when it carries one: the closest passage must be quoted as found.

    The gate keeps an unverifiable verdict's quote only when it occurs in the evidence item it
    cites; None when the verdict cites nothing.
    """
    if verdict.quote is None and verdict.evidence_id is None and not verdict.citation_verified:
        return None
    if verdict.evidence_id is None:
        return Finding(claim.id, "unverifiable, but it carries a quote that cites no evidence item", False)
    cited = next((item for item in evidence if item.id == verdict.evidence_id), None)
    if cited is None:
        return Finding(claim.id, f"unverifiable, but its quote cites {verdict.evidence_id!r}, which was not "
                                 "retrieved for this claim", False)
    problem = quote_problem(verdict.quote, cited.text)
    if problem is not None:
        return Finding(claim.id, f"unverifiable, but {problem} {cited.id!r}", False)
    return Finding(claim.id, f"closest quote is in {cited.id}", True)


def _computation(claim: Claim, verdict: Verdict, evidence: list[Evidence]) -> Finding:
    computation = verdict.computation
    assert computation is not None
    today = computation.today or datetime.date.today()
    try:
        answer = calculate(claim.text, evidence, today)
    except Exception as error:  # a report that crashes the calculator does not hold
        return Finding(claim.id, f"computation cannot be run again: {type(error).__name__}", False)
    again = computation_of(answer) if answer is not None else None
    same = answer is not None and answer.label == verdict.label and again is not None \
        and again.text == computation.text
    if same:
        return Finding(claim.id, "computation gives the same result when run again", True)
    result = f"{answer.label}: {answer.text}" if answer is not None else "nothing"
    return Finding(claim.id, f"computation run again gives {result}, not {verdict.label}: {computation.text}", False)


def _snapshot(claim: Claim, verdict: Verdict, folder: Path) -> Finding:
    """The kept page named on the verdict, read only as a regular file inside `folder` and within the size cap."""
    page = verdict.page
    assert page is not None and page.snapshot is not None
    name = page.snapshot
    try:
        path = name_inside(folder, name)
        raw = read_regular_file(path, MAX_SNAPSHOT_BYTES)
    except FileRefused as refused:
        return Finding(claim.id, f"snapshot {name!r} is refused: it {refused}", False)
    if hashlib.sha256(raw).hexdigest() != page.sha256:
        return Finding(claim.id, f"snapshot {name} does not match its recorded hash", False)
    content_type = "text/plain" if path.suffix == ".txt" else "text/html"
    outcome, *_ = examine_page(claim.text, verdict, decode_page(raw, None).text, content_type)
    holds = outcome in PAGE_VERIFIED
    return Finding(claim.id, f"snapshot {name} carries the quote ({outcome})" if holds
                   else f"snapshot {name} does not carry the quote ({outcome})", holds)


async def _live(claim: Claim, verdict: Verdict, settings: FetchSettings) -> Finding:
    page = verdict.page
    assert page is not None
    again = await check_page(claim.text, verdict, page.url, settings)
    return Finding(claim.id, f"live page {page.url}: {again.outcome}: {again.reason}", again.verified)

"""Is a saved report whole and consistent with itself? Every derived field, derived again.

A report carries figures computed from its verdicts: the summary counts, the evaluation and
`ok`, `passed`, and the reliability scores with the hallucination risk. `structure_findings`
computes each again with the code that computed it in the first place (`evaluate`,
`reliability`, `support_scores`, `Report.passed`), and checks that each claim has exactly one
verdict, that each claim and skipped statement sits where its span says in the text, and that
the file holds nothing a report does not.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from typing import Any

from veracity.audit.findings import Finding
from veracity.calculator.plugin import ShippedCalculator
from veracity.contracts import (
    DeadlineFailure,
    Evaluation,
    EvaluationIssue,
    Evidence,
    GateFailure,
    Report,
    ToolFailure,
    Verdict,
)
from veracity.mode import OFFLINE
from veracity.nodes.evaluate import evaluate
from veracity.offline.support import support_scores
from veracity.resources import capabilities_of
from veracity.scores import reliability
from veracity.state import FactCheckState
from veracity.step_support.names import FINALIZE_REPORT

SCORE_TOLERANCE = 0.002
"""How far a support score computed again may be from the recorded one (the embedder's float noise)."""
_SHOWN_PATHS = 3


def evidence_by_claim(report: Report) -> dict[str, list[Evidence]]:
    """The report's evidence items per claim id, in report order (the order the judge read them)."""
    grouped: dict[str, list[Evidence]] = {}
    for item in report.evidence:
        grouped.setdefault(item.claim_id, []).append(item)
    return grouped


def structure_findings(report: Report, written: Any = None, *, scores: bool = True) -> list[Finding]:
    """Every structural finding for `report`; `written` is the report file's JSON as read (checked when given).

    With `scores`, the support scores are computed again with the local embedder.
    """
    findings = [*_claims_and_verdicts(report), _counts(report), *_mode(report), *_evaluation(report),
                _passed(report, written), _legacy_evaluation(report, written), *_extra_fields(report, written),
                *_reliability(report)]
    if scores:
        findings += _support_scores(report)
    return [finding for finding in findings if finding is not None]


def _claims_and_verdicts(report: Report) -> list[Finding]:
    found: list[Finding] = []
    ids = Counter(claim.id for claim in report.claims)
    verdicts = Counter(verdict.claim_id for verdict in report.verdicts)
    for claim_id, count in ids.items():
        if count > 1:
            found.append(Finding(claim_id, f"claim id {claim_id} is used by {count} claims", False))
    for claim in report.claims:
        start, end = claim.span
        if report.text[start:end] != claim.source:
            found.append(Finding(claim.id, f"the claim's source is not at characters {start}-{end} of the text", False))
    for statement in report.skipped:
        start, end = statement.span
        if report.text[start:end] != statement.source:
            found.append(Finding(None, f"the skipped statement {statement.source!r} is not at characters "
                                       f"{start}-{end} of the text", False))
    missing = [claim_id for claim_id in ids if verdicts[claim_id] == 0]
    repeated = [claim_id for claim_id in ids if verdicts[claim_id] > 1]
    unknown = [claim_id for claim_id in verdicts if claim_id not in ids]
    found += [Finding(claim_id, "the claim has no verdict", False) for claim_id in missing]
    found += [Finding(claim_id, f"the claim has {verdicts[claim_id]} verdicts, not one", False)
              for claim_id in repeated]
    found += [Finding(claim_id, "a verdict for a claim that is not in the report", False) for claim_id in unknown]
    if not (missing or repeated or unknown):
        found.append(Finding(None, f"one verdict per claim ({len(ids)} claim(s))", True))
    return found


def _counts(report: Report) -> Finding:
    labels = Counter(verdict.label for verdict in report.verdicts)
    summary = report.summary
    recorded = (summary.claims, summary.supported, summary.refuted, summary.unverifiable, summary.failures)
    actual = (len(report.claims), labels["supported"], labels["refuted"], labels["unverifiable"], len(report.failures))
    if recorded == actual:
        return Finding(None, f"summary counts match the verdicts ({actual[1]} supported, {actual[2]} refuted, "
                             f"{actual[3]} unverifiable)", True)
    names = ("claims", "supported", "refuted", "unverifiable", "failures")
    wrong = ", ".join(f"{name} {said}, not {real}" for name, said, real in zip(names, recorded, actual, strict=True)
                      if said != real)
    return Finding(None, f"summary counts do not match the report: {wrong}", False)


def _mode(report: Report) -> list[Finding]:
    if not report.mode or not report.model:
        return []
    if (report.model == OFFLINE) == report.mode.startswith(f"{OFFLINE}+"):
        return []
    return [Finding(None, f"mode {report.mode!r} and model {report.model!r} disagree", False)]


def report_state(report: Report) -> FactCheckState:
    """The graph state a report was assembled from, as far as the report's rules read it."""
    verdicts: dict[str, Verdict] = {}
    for verdict in report.verdicts:
        verdicts.setdefault(verdict.claim_id, verdict)
    gate = [failure for failure in report.failures if isinstance(failure, GateFailure)]
    return {
        "claims": report.claims,
        "verdicts": verdicts,
        "evidence": evidence_by_claim(report),
        "tool_failures": {f.claim_id: f for f in report.failures if isinstance(f, ToolFailure)},
        "judge_failures": {f.claim_id: f for f in gate if f.step == "judge" and f.claim_id is not None},
        "input_failure": next((f for f in gate if f.step == "input"), None),
        "extraction_failure": next((f for f in gate if f.step == "extract"), None),
        "source_mode": report.mode.endswith("+source"),
    }


def expected_evaluations(report: Report) -> list[Evaluation]:
    """What the report's rules give for it, under each setting of the check the report does not record.

    Strict first; then with page checks turned off (`verify_pages`), and with snippet citations
    allowed (`allow_snippet_citations`). A check stopped at its deadline has one issue, the
    deadline, whatever the rules would say.
    """
    deadline = next((f for f in report.failures if isinstance(f, DeadlineFailure)), None)
    if deadline is not None:
        issue = EvaluationIssue(code="deadline_exceeded", message=deadline.message, revisable=False)
        return [Evaluation(issues=[issue])]
    state = report_state(report)
    rules = functools.partial(evaluate, state, calculator=ShippedCalculator(), capabilities=capabilities_of)
    return [rules(), rules(verify_pages=False), rules(allow_snippet_citations=True)]


def _issues(evaluation: Evaluation) -> list[tuple[str, str, str, bool]]:
    return sorted((i.code, i.claim_id or "", i.message, i.revisable) for i in evaluation.issues)


def _evaluation(report: Report) -> list[Finding]:
    recorded = report.evaluation
    expected = expected_evaluations(report)
    matched = next((e for e in expected if _issues(e) == _issues(recorded)), None)
    rules = matched or expected[0]
    codes = ", ".join(issue.code for issue in rules.issues) or "no issue"
    if matched is not None:
        found = [Finding(None, f"evaluation matches the report's rules ({codes})", True)]
    else:
        said = ", ".join(issue.code for issue in recorded.issues) or "no issue"
        found = [Finding(None, f"evaluation lists {said}, but the report's rules give {codes}", False)]
    if report.ok == rules.sound:
        found.append(Finding(None, f"ok is {report.ok}, as the report's rules give", True))
    else:
        found.append(Finding(None, f"ok is {report.ok}, but the report's rules give {rules.sound}", False))
    return found


def _passed(report: Report, written: Any) -> Finding | None:
    if not isinstance(written, dict) or "passed" not in written:
        return None
    if written["passed"] == report.passed:
        return Finding(None, f"passed is {report.passed}, as the verdicts and failures give", True)
    return Finding(None, f"passed is {written['passed']!r}, but the verdicts and failures give {report.passed}", False)


def _legacy_evaluation(report: Report, written: Any) -> Finding | None:
    """An older report's ``evaluation.passed`` (what `ok` says: the check is sound) must agree with `ok`."""
    evaluation = written.get("evaluation") if isinstance(written, dict) else None
    if not isinstance(evaluation, dict) or "passed" not in evaluation:
        return None
    said = evaluation["passed"]
    if said is report.ok and report.ok == report.evaluation.sound:
        return Finding(None, f"evaluation.passed (an older report's field for ok) is {said!r}, as ok is", True)
    return Finding(None, f"evaluation.passed (an older report's field for ok) is {said!r}, but ok is {report.ok} "
                         f"and the evaluation lists {len(report.evaluation.issues)} issue(s)", False)


def _written_fields(written: Any) -> Any:
    """The file's JSON without the fields a report derives or an older report held (checked apart).

    A verdict's `shown_label` is text for people, derived from its other fields when the report is read:
    the way it is worded may change between versions, so it is not compared.
    """
    if not isinstance(written, dict):
        return written
    fields = {key: value for key, value in written.items() if key != "passed"}
    evaluation = fields.get("evaluation")
    if isinstance(evaluation, dict) and "passed" in evaluation:
        fields["evaluation"] = {key: value for key, value in evaluation.items() if key != "passed"}
    verdicts = fields.get("verdicts")
    if isinstance(verdicts, list):
        fields["verdicts"] = [{key: value for key, value in verdict.items() if key != "shown_label"}
                              if isinstance(verdict, dict) else verdict for verdict in verdicts]
    return fields


def _extra_fields(report: Report, written: Any) -> list[Finding]:
    """Fields in the file that are not part of a report, or differ from what the report model reads back."""
    if written is None:
        return []
    read_back = report.model_dump(mode="json")
    odd = _differences(_written_fields(written), read_back, "$")
    if not odd:
        return []
    shown = "; ".join(odd[:_SHOWN_PATHS]) + (f"; and {len(odd) - _SHOWN_PATHS} more" if len(odd) > _SHOWN_PATHS else "")
    return [Finding(None, f"the file holds what a report does not: {shown}", False)]


def _differences(written: Any, model: Any, path: str) -> list[str]:
    """Where `written` has a field `model` lacks, or a value `model` does not have (missing fields are defaults)."""
    if isinstance(written, dict) and isinstance(model, dict):
        found = []
        for key, value in written.items():
            if key not in model:
                found.append(f"{path}.{key} is not a report field")
            else:
                found += _differences(value, model[key], f"{path}.{key}")
        return found
    if isinstance(written, list) and isinstance(model, list):
        if len(written) != len(model):
            return [f"{path} has {len(written)} items, the report {len(model)}"]
        pairs = enumerate(zip(written, model, strict=True))
        return [found for n, (a, b) in pairs for found in _differences(a, b, f"{path}[{n}]")]
    if (written == model and type(written) is type(model)) or _same_number(written, model):
        return []
    return [f"{path} is {_short(written)}, read as {_short(model)}"]


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return (isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool)
            and a == b)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _reliability(report: Report) -> list[Finding]:
    scores = {verdict.claim_id: verdict.support_score for verdict in report.verdicts}
    expected = reliability(report.claims, report.verdicts, scores)
    fields = ("evidence_coverage", "average_similarity", "reliability_score", "hallucination_risk",
              "unsupported_claims")
    wrong = [f"{name} is {_short(getattr(report, name))}, not {_short(getattr(expected, name))}"
             for name in fields if getattr(report, name) != getattr(expected, name)]
    if wrong:
        return [Finding(None, f"reliability scores do not follow from the verdicts: {'; '.join(wrong)}", False)]
    return [Finding(None, f"reliability scores follow from the verdicts (risk {report.hallucination_risk})", True)]


def _support_scores(report: Report) -> list[Finding]:
    """Each verdict's support score, computed again with the local embedder from its claim and evidence."""
    from veracity.offline.model.embedder import default_embedder

    failed = any(r.step == FINALIZE_REPORT and r.outcome == "failed" for r in report.trace)
    try:
        again = {} if failed or not report.claims else support_scores(
            report.claims, evidence_by_claim(report), default_embedder())
    except Exception as exc:  # the embedder is local, but a broken install must not be a traceback
        return [Finding(None, f"support scores cannot be computed again: {type(exc).__name__}: {exc}", False)]
    wrong = [Finding(verdict.claim_id, f"support score {verdict.support_score} does not match the claim and its "
                                       f"evidence (computed again: {again.get(verdict.claim_id)})", False)
             for verdict in report.verdicts if not _close(verdict.support_score, again.get(verdict.claim_id))]
    return wrong or [Finding(None, "support scores match the claims and their evidence", True)]


def _close(recorded: float | None, computed: float | None) -> bool:
    if recorded is None or computed is None:
        return recorded is computed
    return math.isclose(recorded, computed, abs_tol=SCORE_TOLERANCE)

"""Judge an offline report's decisive verdicts again, with the offline judge that wrote them.

The offline judge is deterministic: the same claim on the same evidence gets the same label and
quotes the same passage. A supported or refuted verdict of an offline report (computed verdicts
aside: they are computed again instead) must come out the same when judged again, and only the
judge version the report records can say so; with another version, re-judging fails and says why.
"""

from __future__ import annotations

from veracity.audit.findings import Finding
from veracity.audit.structure import evidence_by_claim
from veracity.contracts import Report
from veracity.mode import OFFLINE
from veracity.offline.judge.version import offline_judge_version


def rejudge_findings(report: Report) -> list[Finding]:
    """One finding per decisive, judged verdict of an offline report (none for a chat model's report)."""
    if report.model != OFFLINE:
        return []
    claims = {claim.id: claim for claim in report.claims}
    judged = [verdict for verdict in report.verdicts
              if verdict.label != "unverifiable" and verdict.computation is None and verdict.claim_id in claims]
    if not judged:
        return []
    current = offline_judge_version()
    if report.judge_version != current:
        recorded = f"offline judge {report.judge_version}" if report.judge_version else "an offline judge whose " \
                                                                                       "version it does not record"
        return [Finding(None, f"cannot judge the verdicts again: the report was judged by {recorded}, this is "
                              f"offline judge {current} (verify with the veracity that wrote the report)", False)]
    from veracity.offline.judge.entailment_judge import EntailmentJudge

    judge = EntailmentJudge()
    evidence = evidence_by_claim(report)
    found = []
    for verdict in judged:
        again = judge.assess(claims[verdict.claim_id].text, evidence.get(verdict.claim_id, [])).output()
        label, cited, quote = again["label"], again["evidence_id"], again["quote"]
        if label != verdict.label:
            found.append(Finding(verdict.claim_id, f"judged again, the offline judge says {label}, not {verdict.label}",
                                 False))
        elif (cited, quote) != (verdict.evidence_id, verdict.quote):
            found.append(Finding(verdict.claim_id, f"judged again, the offline judge says {label} but quotes "
                                                   f"{quote!r} from {cited}, not the verdict's quote", False))
        else:
            found.append(Finding(verdict.claim_id, f"judged again: {label}, on the same quote", True))
    return found

"""Audit artefacts of a check: the report as JSON, a reader's summary and an auditor's account.

`write_artefacts(report, folder)` writes four files next to each other:

* ``report.json``: the whole `Report`, the file `veracity verify` re-checks;
* ``report.md``: for readers: each claim's verdict, quote, source and computation;
* ``audit.md``: for auditors: per claim, the searches run, the evidence considered (and which
  search found it), the passage that decided and why, the page check, the judge's retries
  from the trace, and how the check ran (mode, veracity version, date);
* ``report.json.sig``: an Ed25519 signature over ``report.json`` by the local key (`signing`),
  so that `veracity verify` shows any later edit.
"""

from veracity.audit.markdown import audit_markdown, report_markdown
from veracity.audit.write import ARTEFACTS, write_artefacts

__all__ = ["ARTEFACTS", "audit_markdown", "report_markdown", "write_artefacts"]

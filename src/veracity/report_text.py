"""The words every message about a report shares, taken from the report itself.

The command line, the Markdown artefacts and `Guard` all state a report's counts and name its
evidence; each does it through these functions, so no message can say another number than the
report holds, or speak of "the source" when the evidence came from the web or a knowledge base.
"""

from __future__ import annotations

from veracity.contracts import Report, Summary

EVIDENCE_NAMES = {
    "source": "the source text",
    "kb": "the knowledge base",
    "web": "the web search results",
}
"""How a message names the evidence of each built-in backend (see `Report.mode`)."""

OTHER_EVIDENCE = "the evidence found"
"""How a message names the evidence of any other backend (a bound backend or retriever)."""


def without_verdict(summary: Summary) -> int:
    """How many claims have no verdict at all (a report normally has none)."""
    return summary.claims - summary.supported - summary.refuted - summary.unverifiable


def count_parts(summary: Summary) -> list[tuple[int, str]]:
    """Each count with its label: supported, refuted, unverifiable, then claims without a verdict if any."""
    parts = [(summary.supported, "supported"), (summary.refuted, "refuted"), (summary.unverifiable, "unverifiable")]
    missing = without_verdict(summary)
    if missing:
        parts.append((missing, "without a verdict"))
    return parts


def counts_line(summary: Summary) -> str:
    """E.g. '3 claim(s): 1 supported, 1 refuted, 1 unverifiable'."""
    return f"{summary.claims} claim(s): " + ", ".join(f"{count} {label}" for count, label in count_parts(summary))


def evidence_kind(report: Report) -> str:
    """The evidence backend a report's check used: 'web', 'kb', 'source', or another backend's name."""
    return report.mode.rpartition("+")[2]


def evidence_name(report: Report) -> str:
    """What a message calls the report's evidence, e.g. 'the knowledge base'."""
    return EVIDENCE_NAMES.get(evidence_kind(report), OTHER_EVIDENCE)

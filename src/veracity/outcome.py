"""What a finished report amounts to: the text passes, fails, or the check is incomplete."""

from __future__ import annotations

from typing import Literal

from veracity.contracts import Report

Outcome = Literal["pass", "fail", "incomplete"]

FINDING_CODES = {"unsupported_by_source"}
"""Evaluation issues that are findings about the text, not failures of the check."""


def problems(report: Report) -> list[str]:
    """Why a check is incomplete: its typed failures and the evaluation issues that are not findings."""
    messages = [failure.message for failure in report.failures]
    messages += [issue.message for issue in report.evaluation.issues if issue.code not in FINDING_CODES]
    return messages


def report_outcome(report: Report) -> Outcome:
    """'incomplete' when anything failed; else 'fail' when a claim is refuted or unverifiable; else 'pass'."""
    if problems(report):
        return "incomplete"
    if report.summary.refuted or report.summary.unverifiable:
        return "fail"
    return "pass"

"""Render a `Report` for people: a verdict table, a summary, issues, and the trace.

Every piece of text that came from a user or from evidence goes in as `Text`, never as a string
Rich would parse: "[bold red]x[/]" in a claim is shown as written, not read as markup.
"""

from __future__ import annotations

from rich.console import Console, Group, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from veracity.contracts import Report, Verdict
from veracity.report_text import count_parts

LABEL_STYLES = {"supported": "bold green", "refuted": "bold red", "unverifiable": "bold yellow"}


def decisive_quote(verdict: Verdict) -> str | None:
    """The quote that decided a supported or refuted verdict.

    None for unverifiable verdicts, whose quote (if any) is only the closest passage found.
    """
    return verdict.quote if verdict.quote and verdict.label != "unverifiable" else None


def verdict_table(report: Report) -> Table:
    """One row per claim: label, claim, quote (or reason when there is none), and source."""
    table = Table(show_lines=True, expand=True)
    table.add_column("Label", max_width=18)
    table.add_column("Claim", ratio=3)
    table.add_column("Quote", ratio=4)
    table.add_column("Source", ratio=2)
    for claim in report.claims:
        verdict = report.verdict_for(claim.id)
        if verdict is None:
            table.add_row(Text("missing", style="bold magenta"), Text(claim.text), "", "")
            continue
        evidence = report.cited_evidence(verdict)
        if decisive_quote(verdict):
            quote = Text(f"“{verdict.quote}”")
            if verdict.computation is not None:
                quote.append(f"\ncomputed: {verdict.computation.text}", style="cyan")
        else:
            quote = Text(verdict.reason, style="dim italic")
            if verdict.quote:
                quote.append(f"\nclosest: “{verdict.quote}”", style="dim")
        if verdict.label != "supported" and verdict.alignment is not None \
                and verdict.alignment.corrected_claim is not None:
            quote.append(f"\nby the source: {verdict.alignment.corrected_claim}", style="cyan")
        source = ""
        if evidence is not None:
            source = evidence.title or ""
            if evidence.url:
                source = f"{source}\n{evidence.url}".strip()
            if evidence.found_by == "counter":
                source += "\n(found by the search for evidence against the claim)"
        if verdict.single_source:
            source += f"\nsingle source: all evidence is from {verdict.single_source}"
        if verdict.page is not None:
            quote.append(f"\npage: {verdict.page.outcome.replace('_', ' ')}: {verdict.page.reason}",
                         style="green" if verdict.page.verified else "bold yellow")
        label = Text(verdict.shown_label, style=LABEL_STYLES[verdict.label])
        table.add_row(label, Text(claim.text), quote, Text(source))
    return table


def summary_text(report: Report, seconds: float | None = None) -> Text:
    """A one-line summary: counts, whether the text passed (every claim supported), tokens and time."""
    line = Text(f"{report.summary.claims} claim(s): ")
    for index, (count, label) in enumerate(count_parts(report.summary)):
        line.append(", " if index else "").append(f"{count} {label}", LABEL_STYLES.get(label, "bold magenta"))
    line.append(" · ")
    if report.passed:
        line.append("passed", "green")
    elif report.outcome == "fail":
        line.append("FAILED: not every claim is supported", "bold red")
    else:
        line.append("INCOMPLETE: not every claim could be checked", "bold red")
    line.append(f" · tokens {report.tokens_in} in / {report.tokens_out} out")
    if report.revisions:
        line.append(f" · {report.revisions} revision(s)")
    if report.reliability_score is not None:
        risk_style = {"LOW": "green", "MEDIUM": "yellow", "HIGH": "red"}[report.hallucination_risk or "HIGH"]
        line.append("\nreliability ")
        line.append(f"{report.reliability_score:.2f} ({report.hallucination_risk} risk)", risk_style)
        line.append(f" · evidence coverage {report.evidence_coverage:.2f}"
                    f" · average similarity {report.average_similarity:.2f}")
        line.append("  (heuristics, not truth)", "dim")
    if seconds is not None:
        line.append(f" · {seconds:.1f} s")
    return line


def skipped_text(report: Report) -> Text:
    """The statements that were not checked, one per line, with why."""
    text = Text("Not checked:\n", style="bold")
    for statement in report.skipped:
        text.append(f"  - “{statement.source}”: {statement.message}\n", style="dim")
    return text


def issues_text(report: Report) -> Text | None:
    """The evaluation issues, one per line, or None when there are none."""
    if not report.evaluation.issues:
        return None
    text = Text("Issues:\n", style="bold red")
    for issue in report.evaluation.issues:
        text.append(f"  - [{issue.code}] {issue.message}\n")
    return text


def trace_table(report: Report) -> Table:
    """The trace as a table of step, claim, attempt, outcome, tokens, seconds, cache hit/miss and reason."""
    table = Table(title="Trace")
    columns: list[tuple[str, JustifyMethod]] = [
        ("Step", "left"), ("Claim", "left"), ("Attempt", "right"), ("Outcome", "left"),
        ("Tokens in", "right"), ("Tokens out", "right"), ("Seconds", "right"), ("Cache", "left"), ("Reason", "left"),
    ]
    for name, justify in columns:
        table.add_column(name, justify=justify, overflow="fold")
    for record in report.trace:
        table.add_row(
            record.step, record.claim_id or "", str(record.attempt), record.outcome, str(record.tokens_in),
            str(record.tokens_out), f"{record.seconds:.3f}", record.cache or "", Text((record.reason or "")[:200]),
        )
    return table


def print_report(console: Console, report: Report, *, show_trace: bool = False, seconds: float | None = None) -> None:
    """Print the verdict table (or the report's message), summary, issues and optionally the trace."""
    parts: list[RenderableType] = []
    if report.claims:
        parts.append(verdict_table(report))
    elif report.message:
        parts.append(Text(report.message, style="italic"))
    parts.append(summary_text(report, seconds))
    if report.skipped:
        parts.append(skipped_text(report))
    if issues := issues_text(report):
        parts.append(issues)
    if show_trace:
        parts.append(trace_table(report))
    console.print(Group(*parts))

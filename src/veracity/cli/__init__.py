"""The command line: `veracity check`, `batch`, `verify`, `ingest`, `kb`, `eval`, `calibrate`, `serve`, `mcp`, `cache`.

Each command's module is imported only when that command runs, so `veracity --help` starts at once.
"""

from __future__ import annotations

import click

from veracity.cli.lazy_group import LazyCommand, LazyGroup

__all__ = ["COMMANDS", "main"]

COMMANDS: dict[str, LazyCommand] = {
    "check": LazyCommand("veracity.cli.check", "check_command", "Fact-check TEXT (use '-' to read standard input)."),
    "batch": LazyCommand(
        "veracity.cli.batch", "batch_command",
        "Fact-check every row of IN and write the reports to OUT, a few at a time, resumably.",
    ),
    "verify": LazyCommand(
        "veracity.cli.verify", "verify_command",
        "Re-check REPORT (a report.json from `check --out` or `--json`) with no model and no search.",
    ),
    "ingest": LazyCommand(
        "veracity.cli.knowledge_base", "ingest_command", "Add documents to the local knowledge base.",
        summary_is_short_help=True,
    ),
    "kb": LazyCommand(
        "veracity.cli.knowledge_base", "kb_group", "Inspect and manage the local knowledge base.",
        summary_is_short_help=True,
    ),
    "eval": LazyCommand(
        "veracity.cli.eval", "eval_command",
        "Measure the judge against labelled DATASET (JSONL) and optionally gate on a metric.",
    ),
    "calibrate": LazyCommand(
        "veracity.cli.calibrate", "calibrate_command",
        "Measure how often the configured judge is right on labelled DATASET, and certify when it may be decisive.",
    ),
    "serve": LazyCommand(
        "veracity.cli.serve", "serve_command", "Serve the fact-check graph over HTTP (FastAPI under uvicorn).",
    ),
    "mcp": LazyCommand(
        "veracity.cli.mcp", "mcp_command",
        "Serve veracity over the Model Context Protocol on standard input and output (for desktop clients and agents).",
    ),
    "cache": LazyCommand(
        "veracity.cli.cache", "cache_group", "Inspect and empty the cache of model answers and web searches.",
    ),
}
"""Each command's name, where it is defined, and its line in `veracity --help` (kept equal by a test)."""


@click.group(cls=LazyGroup, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="veracity")
def main() -> None:
    """veracity: catch factual errors in text.

    Splits text into atomic claims, finds evidence for each, and judges every claim
    supported, refuted or unverifiable with a quote checked against the evidence.
    """
    from veracity.cli.quiet import quiet_third_party

    quiet_third_party()

"""Write a check's audit artefacts into a folder."""

from __future__ import annotations

from pathlib import Path

from veracity.audit.markdown import audit_markdown, report_markdown
from veracity.contracts import Report

ARTEFACTS = ("report.json", "report.md", "audit.md")
"""The files `write_artefacts` writes, in that order."""


def write_artefacts(report: Report, folder: str | Path) -> list[Path]:
    """Write ``report.json``, ``report.md`` and ``audit.md`` into `folder` (created if needed); their paths.

    Each file is written whole under a temporary name and then renamed, so an interrupted
    write never leaves a half file behind a good name.
    """
    target = Path(folder).expanduser()
    target.mkdir(parents=True, exist_ok=True)
    contents = (report.model_dump_json(indent=2), report_markdown(report), audit_markdown(report))
    written = []
    for name, text in zip(ARTEFACTS, contents, strict=True):
        path = target / name
        partial = path.with_name(f".{name}.part")
        partial.write_text(text + ("" if text.endswith("\n") else "\n"), encoding="utf-8")
        partial.replace(path)
        written.append(path)
    return written

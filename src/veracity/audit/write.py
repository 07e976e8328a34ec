"""Write a check's audit artefacts into a folder, the report signed."""

from __future__ import annotations

from pathlib import Path

from veracity.audit.markdown import audit_markdown, report_markdown
from veracity.audit.signing import SigningKey, local_signing_key, signature_path
from veracity.contracts import Report
from veracity.user_files import write_atomically

ARTEFACTS = ("report.json", "report.md", "audit.md", "report.json.sig")
"""The files `write_artefacts` writes, in that order (the last only when it signs)."""


def write_artefacts(report: Report, folder: str | Path, *, sign: bool = True,
                    signing_key: SigningKey | None = None) -> list[Path]:
    """Write ``report.json``, ``report.md`` and ``audit.md`` into `folder` (created if needed); their paths.

    With `sign`, ``report.json.sig`` is written too: an Ed25519 signature over the exact bytes of
    ``report.json``, by `signing_key` (default: the local key, made on first use; see
    `veracity.audit.signing`). Without it, a signature left by an earlier write is removed.
    Each file is written whole under a temporary name and then renamed, so an interrupted
    write never leaves a half file behind a good name. Raises `OSError` (a `SigningKeyError`
    for the key) when a file or the key cannot be written.
    """
    target = Path(folder).expanduser()
    target.mkdir(parents=True, exist_ok=True)
    key = (signing_key or local_signing_key()) if sign else None
    report_json = _with_newline(report.model_dump_json(indent=2)).encode("utf-8")
    contents = [report_json, *(_with_newline(text).encode("utf-8")
                               for text in (report_markdown(report), audit_markdown(report)))]
    names = list(ARTEFACTS[:3])
    if key is not None:
        contents.append(key.sign(report_json, ARTEFACTS[0]))
        names.append(ARTEFACTS[3])
    else:
        signature_path(target / ARTEFACTS[0]).unlink(missing_ok=True)
    written = []
    for name, data in zip(names, contents, strict=True):
        written.append(write_atomically(target / name, data))
    return written


def _with_newline(text: str) -> str:
    return text + ("" if text.endswith("\n") else "\n")

"""Shared helpers for the knowledge base tests: a demo knowledge base built once per session, and file makers.

Test modules import the fixtures they use by name (`from tests.unit.kb_fixtures import demo_kb`).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from veracity.kb import KnowledgeBase, ensure_demo
from veracity.offline.model.embedder import Embedder

AUSTRALIA = (
    "# Australia facts\n\n"
    "Canberra is the capital of Australia. It was chosen as a compromise between Sydney and Melbourne.\n\n"
    "Sydney is the largest city in Australia."
)
TOWER = "The Eiffel Tower is in Paris. It was completed in 1889 and is about 330 metres tall."


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A knowledge base seeded with the demo notes, built once; copy it before changing it."""
    path = tmp_path_factory.mktemp("demo-template") / "kb"
    assert ensure_demo(KnowledgeBase(path))
    return path


@pytest.fixture
def demo_kb(demo_template: Path, tmp_path: Path) -> KnowledgeBase:
    """A private copy of the demo knowledge base."""
    target = tmp_path / "demo-kb"
    shutil.copytree(demo_template, target)
    return KnowledgeBase(target)


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    """A knowledge base location that does not exist yet."""
    return KnowledgeBase(tmp_path / "kb")


def model_runs(monkeypatch: pytest.MonkeyPatch, embedder: Embedder) -> list[list[str]]:
    """Record the texts an embedder's transformer runs on, call by call (cache hits never reach it)."""
    runs: list[list[str]] = []
    real_run = embedder._run

    def recording_run(texts):
        runs.append(list(texts))
        return real_run(texts)

    monkeypatch.setattr(embedder, "_run", recording_run)
    return runs


def write(path: Path, content: str | bytes) -> Path:
    """Write text (UTF-8) or bytes to `path`, creating folders; return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def corrupt(path: Path, *, keep_time: bool = False) -> None:
    """Flip 16 bytes in the middle of a file: same size, and with `keep_time` the same modification time."""
    status = path.stat()
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 16] = bytes(byte ^ 0xFF for byte in data[middle:middle + 16])
    path.write_bytes(bytes(data))
    if keep_time:
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


def strip_checksums(kb: Path) -> None:
    """Make the manifest look like one written before checksums were recorded."""
    manifest = kb / "manifest.json"
    data = json.loads(manifest.read_text())
    data.pop("checksums", None)
    manifest.write_text(json.dumps(data))


def _pdf_string(text: str) -> bytes:
    return b"(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1") + b")"


def minimal_pdf(lines: list[str], *, title: str | None = None) -> bytes:
    """A valid one-page PDF showing `lines` in Helvetica, with an optional metadata title."""
    shown = b" T* ".join(_pdf_string(line) + b" Tj" for line in lines)
    content = b"BT /F1 12 Tf 14 TL 72 720 Td " + shown + b" ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
         b" /Resources << /Font << /F1 5 0 R >> >> >>"),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    if title:
        objects.append(b"<< /Title " + _pdf_string(title) + b" >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    info = b" /Info %d 0 R" % len(objects) if title else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, info, xref)
    return bytes(out)

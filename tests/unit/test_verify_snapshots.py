"""`verify --snapshots`: a kept page is a regular file named inside the folder, read within a size cap;
`verify --live` on a verdict for an unknown claim is a failure line, not a traceback."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import veracity
import veracity.audit.verify
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.cli import main
from veracity.contracts import PageCheck, Report
from veracity.user_files import FileRefused, read_regular_file

C1 = "Canberra is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."
PAGE = f"<html><body><p>{NOTE}</p></body></html>".encode()
SECONDS = 20.0
"""A refusal is quick; this only keeps a blocked read from hanging the test run."""


@pytest.fixture
def report(world: FakeWorld) -> Report:
    world.extract(claims_reply((C1, C1)))
    world.evidence(C1, [hit(NOTE, title="Australia note", url="https://example.org/australia")])
    world.judge(C1, verdict_reply("supported", "c1-e1", NOTE))
    return veracity.check(C1, model=world.model(), backend=world.backend())


def with_snapshot(report: Report, name: str) -> Report:
    """`report` with its verdict's cited page kept under `name`, as `check --snapshots` records it."""
    page = PageCheck(outcome="verified_live", url="https://example.org/australia", snapshot=name,
                     sha256=hashlib.sha256(PAGE).hexdigest(), checked_at="2026-11-24T00:00:00+00:00",
                     reason="the quote is on the page")
    verdict = report.verdicts[0].model_copy(update={"page": page})
    return report.model_copy(update={"verdicts": [verdict]})


def run_verify(report: Report, folder: Path, *options: str) -> tuple[Result, float]:
    """Verify `report` (saved unsigned beside `folder`) in a thread; the result and how long it took."""
    path = folder.parent / "report.json"
    path.write_text(report.model_dump_json(indent=2))
    results: list[Result] = []
    started = time.perf_counter()
    worker = threading.Thread(target=lambda: results.append(CliRunner().invoke(main, ["verify", str(path), *options])),
                              daemon=True)
    worker.start()
    worker.join(SECONDS)
    assert results, f"verify did not finish within {SECONDS} s"
    result = results[0]
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result, time.perf_counter() - started


@pytest.fixture
def snapshots(tmp_path: Path) -> Path:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    (folder / "kept.html").write_bytes(PAGE)
    (tmp_path / "outside.html").write_bytes(PAGE)  # a page with the right hash, but outside the folder
    os.mkfifo(folder / "pipe.html")
    (folder / "zero.html").symlink_to("/dev/zero")
    (folder / "big.html").write_bytes(PAGE + b" " * 5_000)
    return folder


def test_a_kept_page_inside_the_folder_holds(report: Report, snapshots: Path) -> None:
    result, _ = run_verify(with_snapshot(report, "kept.html"), snapshots, "--snapshots", str(snapshots))
    assert result.exit_code == 0 and "snapshot kept.html carries the quote" in result.stdout, result.stdout


@pytest.mark.parametrize(("name", "reason"), [
    ("../outside.html", "is a path, not a plain file name inside the folder"),
    ("../../../../../../../../etc/hostname", "is a path, not a plain file name inside the folder"),
    ("/etc/hostname", "is an absolute path, not a name inside the folder"),
    ("pipe.html", "is not a regular file (a FIFO)"),
    ("zero.html", "leads outside the folder"),
    ("big.html", "is larger than 1,000 bytes"),
    ("kept.html\x00.txt", "has an empty or invalid name"),
])
def test_a_snapshot_name_that_leaves_the_folder_or_is_not_a_small_regular_file_is_refused_quickly(
        report: Report, snapshots: Path, monkeypatch: pytest.MonkeyPatch, name: str, reason: str) -> None:
    monkeypatch.setattr(veracity.audit.verify, "MAX_SNAPSHOT_BYTES", 1_000)
    result, seconds = run_verify(with_snapshot(report, name), snapshots, "--snapshots", str(snapshots))
    out = " ".join(result.stdout.split())
    assert result.exit_code == 1 and f"FAILS c1: snapshot {name!r} is refused: it {reason}" in out, out
    assert seconds < SECONDS


def test_a_device_or_a_fifo_is_refused_before_it_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path, kind in ((Path("/dev/zero"), "character device"), (fifo, "FIFO"), (tmp_path, "folder")):
        with pytest.raises(FileRefused, match=f"is not a regular file \\(a {kind}\\)"):
            read_regular_file(path, 1_000)


def test_a_report_file_that_is_a_fifo_or_a_device_is_refused_with_exit_two(tmp_path: Path) -> None:
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), (Path("/dev/zero"), "character device")):
        result = CliRunner().invoke(main, ["verify", str(path)])
        said = " ".join(result.stderr.split())
        assert result.exit_code == 2 and f"it is not a regular file (a {kind})" in said, said


def test_verify_live_on_a_verdict_for_an_unknown_claim_is_a_failure_line(report: Report, tmp_path: Path) -> None:
    orphan = with_snapshot(report, "kept.html").verdicts[0].model_copy(update={"claim_id": "c9"})
    result, _ = run_verify(report.model_copy(update={"verdicts": [*report.verdicts, orphan]}), tmp_path / "none",
                           "--live")
    out = " ".join(result.stdout.split())
    assert result.exit_code == 1 and "FAILS c9: a verdict for a claim that is not in the report" in out, out

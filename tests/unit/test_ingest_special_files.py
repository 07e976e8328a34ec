"""`veracity ingest`: FIFOs, devices and sockets are skipped unopened, and a first ingest that fails leaves a usable
knowledge base.

Every ingest that could block runs in a thread joined with a time limit, so a regression fails the
test instead of hanging the run; a reader stuck on a FIFO is released by opening its write end.
"""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.unit.kb_fixtures import AUSTRALIA, TOWER, write
from veracity.cli.knowledge_base import ingest_command
from veracity.kb import KnowledgeBase, open_default_kb
from veracity.kb import loaders as loaders_module
from veracity.kb.sources import NotRegularFile, _open_regular_descriptor, discover

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")

LIMIT = 120.0
"""Seconds an ingest of two short files may take here (loading the embedding model included)."""


def within_limit(work: Callable[[], Any], fifos: list[Path]) -> Any:
    """Run `work` in a thread; fail (after releasing any reader stuck on `fifos`) if it is still running at LIMIT."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(LIMIT)
    if thread.is_alive():
        for fifo in fifos:  # a reader blocked in open() returns once a writer opens and closes the other end
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        thread.join(10)
        pytest.fail(f"the ingest was still running after {LIMIT:.0f} s (blocked on a FIFO?)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A folder with a regular note and a FIFO named like a note."""
    docs = tmp_path / "docs"
    write(docs / "australia.md", AUSTRALIA)
    os.mkfifo(docs / "pipe.txt")
    yield docs


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path opened with `os.open` (as the ingest opens files) while the test runs."""
    paths: list[str] = []
    real_open = os.open

    def recording_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        paths.append(os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", recording_open)
    return paths


def test_a_fifo_in_the_folder_is_skipped_unopened_and_the_rest_is_ingested(folder: Path, tmp_path: Path,
                                                                           opened: list[str]) -> None:
    kb = KnowledgeBase(tmp_path / "kb")
    report = within_limit(lambda: kb.ingest([folder]), [folder / "pipe.txt"])
    statuses = {Path(result.key).name: (result.status, result.reason) for result in report.results}
    assert statuses["australia.md"] == ("added", None)
    status, reason = statuses["pipe.txt"]
    assert status == "skipped" and "not a regular file" in reason and "FIFO" in reason
    assert not [path for path in opened if Path(path).name == "pipe.txt"]
    assert kb.search("capital of Australia", limit=1)[0].title == "Australia facts"


def test_the_cli_says_so_for_each_special_file_and_exits_1(folder: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    os.mkfifo(folder / "pipe")  # no extension: still reported as what it is
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(folder / "listening.md"))
        result: Result = within_limit(
            lambda: CliRunner().invoke(ingest_command, [str(folder), "--kb", str(tmp_path / "kb")]),
            [folder / "pipe.txt", folder / "pipe"])
    assert result.exit_code == 1, result.output
    skipped = [line for line in result.stderr.splitlines() if " skipped " in line]
    assert len(skipped) == 3, result.stderr
    assert any("pipe.txt (not a regular file: a FIFO" in line for line in skipped)
    assert any(line.rstrip().endswith("pipe (not a regular file: a FIFO (named pipe); not opened)") for line in skipped)
    assert any("listening.md (not a regular file: a socket" in line for line in skipped)
    assert "added 1, updated 0, unchanged 0, skipped 3" in result.stdout
    assert KnowledgeBase(tmp_path / "kb").search("capital of Australia", limit=1)


def test_a_device_given_by_name_is_skipped_without_being_opened(opened: list[str]) -> None:
    device = Path("/dev/null")
    if not device.exists() or not stat.S_ISCHR(device.stat().st_mode):
        pytest.skip("no /dev/null character device here")
    sources, skipped = discover([device])
    assert sources == [] and skipped[0].key == "/dev/null"
    assert skipped[0].reason == "not a regular file: a character device; not opened"
    assert "/dev/null" not in opened


def test_a_file_swapped_for_a_fifo_after_discovery_is_skipped_without_blocking(folder: Path, tmp_path: Path) -> None:
    note = write(folder / "later.txt", TOWER)
    sources, _ = discover([note])
    note.unlink()
    os.mkfifo(note)  # what the folder held changed between discovery and reading
    kb = KnowledgeBase(tmp_path / "kb")
    report = within_limit(lambda: kb.ingest_sources(sources), [note])
    [result] = report.results
    assert result.status == "skipped" and "not a regular file: a FIFO" in (result.reason or "")


def test_a_fifo_met_at_the_moment_of_opening_is_refused_without_blocking(tmp_path: Path) -> None:
    """The last guard, for a path swapped between the look and the open: open without waiting, then look again."""
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="a FIFO"):
        within_limit(lambda: _open_regular_descriptor(str(fifo), os.O_RDONLY), [fifo])


def test_a_first_ingest_that_fails_midway_leaves_an_empty_usable_knowledge_base(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "docs" / "australia.md", AUSTRALIA)
    write(tmp_path / "docs" / "tower.txt", TOWER)
    real_load_text = loaders_module._load_text

    def failing_load_text(source: Any, streamed: bool, block_size: int) -> Any:
        if source.name == "tower.txt":
            raise RuntimeError("the loader broke")
        return real_load_text(source, streamed, block_size)

    monkeypatch.setattr(loaders_module, "_load_text", failing_load_text)
    kb = KnowledgeBase(tmp_path / "kb")
    with pytest.raises(RuntimeError, match="the loader broke"):
        kb.ingest([tmp_path / "docs"])
    monkeypatch.undo()
    reopened = KnowledgeBase(tmp_path / "kb")
    assert reopened.search("capital of Australia") == []  # before: "there is no knowledge base at ..."
    assert reopened.stats().documents == 0 and reopened.documents() == []
    assert reopened.ingest([tmp_path / "docs"]).summary().startswith("added 2")


def test_a_failed_first_ingest_into_the_default_location_keeps_the_demo_notes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default knowledge base starts with the demo notes; a first ingest that fails leaves them."""
    monkeypatch.setenv("VERACITY_KB", str(tmp_path / "default-kb"))
    note = write(tmp_path / "note.txt", TOWER)
    real_load_text = loaders_module._load_text

    def failing_load_text(source: Any, streamed: bool, block_size: int) -> Any:
        if source.name == "note.txt":
            raise RuntimeError("the loader broke")
        return real_load_text(source, streamed, block_size)

    monkeypatch.setattr(loaders_module, "_load_text", failing_load_text)
    result = CliRunner().invoke(ingest_command, [str(note)])
    assert isinstance(result.exception, RuntimeError), result.output
    monkeypatch.setattr(loaders_module, "_load_text", real_load_text)
    paths = [document.path for document in KnowledgeBase().documents()]
    assert paths and all(path.startswith("demo:") for path in paths)


KILLED_INGEST = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from veracity.kb import KnowledgeBase, loaders

    marker = Path(sys.argv[2])

    def stalled(source, streamed, block_size):
        marker.write_text("loading")
        time.sleep(600)

    loaders._load_text = stalled
    KnowledgeBase(sys.argv[1]).ingest([sys.argv[3]])
""")


def killed_while_loading(kb: Path, docs: Path, tmp_path: Path) -> None:
    """Run an ingest in another process and kill it (SIGKILL: no clean-up) while it loads a document."""
    marker = tmp_path / "loading"
    process = subprocess.Popen([sys.executable, "-c", KILLED_INGEST, str(kb), str(marker), str(docs)],
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        deadline = time.monotonic() + LIMIT
        while not marker.exists():
            assert process.poll() is None, "the ingest ended before it loaded a document"
            assert time.monotonic() < deadline, "the ingest never started loading"
            time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(30)


def test_a_first_ingest_killed_midway_leaves_an_empty_usable_knowledge_base(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "australia.md", AUSTRALIA)
    killed_while_loading(tmp_path / "kb", tmp_path / "docs", tmp_path)
    kb = KnowledgeBase(tmp_path / "kb")
    assert kb.search("capital of Australia") == []  # before: "manifest.json is missing"
    assert kb.ingest([tmp_path / "docs"]).summary().startswith("added 1")
    assert [entry.name for entry in kb.path.iterdir() if entry.name.startswith("gen-")] == [kb.manifest().generation]


def test_seeding_the_demo_notes_killed_midway_is_done_again_on_next_use(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERACITY_KB", str(tmp_path / "default-kb"))
    marker = tmp_path / "loading"
    script = KILLED_INGEST.replace("KnowledgeBase(sys.argv[1]).ingest([sys.argv[3]])",
                                   "from veracity.kb import open_default_kb; open_default_kb()")
    process = subprocess.Popen([sys.executable, "-c", script, "-", str(marker), "-"],
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        deadline = time.monotonic() + LIMIT
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.exists(), "the seeding never started loading"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    kb = open_default_kb()
    assert kb.search("Sydney Opera House architect", limit=1)[0].url.startswith("demo:")

"""`veracity kb warm` shows how far it has got on stderr (done of total, rate, time left) and ends with a summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from veracity.cli import warm_progress
from veracity.cli.knowledge_base import ingest_command, kb_group
from veracity.cli.warm_progress import WarmBar, duration

TOWNS = ("Alderbrook", "Bramcote", "Corriehill", "Dunmere", "Elmstead", "Fallowfield", "Glenrock", "Hartwell")
LINE = re.compile(r"^veracity: warm: ([\d,]+) of ([\d,]+) sentence vectors stored \((\d+)%\), "
                  r"(?:[\d,]+\.\d vectors/s|rate not known yet), (about .+ left|time left not known yet|done)$")


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """A real knowledge base on disk, ingested through the CLI, with a few dozen distinct sentences."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for n, town in enumerate(TOWNS):
        (notes / f"{town.lower()}.md").write_text(
            f"# {town}\n\n{town} has {n + 2} public libraries. {town} opened its railway station in {1900 + n}. "
            f"{town} holds a market every Tuesday. {town} lies {n + 10} kilometres from the coast.\n",
            encoding="utf-8")
    result = CliRunner().invoke(ingest_command, [str(notes), "--kb", str(tmp_path / "kb")])
    assert result.exit_code == 0, result.output
    return tmp_path / "kb"


def test_warm_prints_progress_lines_with_rate_and_time_left_and_a_summary(
        kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("veracity.kb.store.WARM_BATCH", 5)  # several batches, so several lines
    monkeypatch.setattr(warm_progress, "LINE_INTERVAL", 0.0)  # a line for every batch stored

    result = CliRunner().invoke(kb_group, ["warm", "--kb", str(kb)])

    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("veracity: warm:")]
    matches = [LINE.match(line) for line in lines]
    assert lines and all(matches), lines
    done = [int(match[1].replace(",", "")) for match in matches if match]
    total = {int(match[2].replace(",", "")) for match in matches if match}
    assert len(done) >= 3 and done == sorted(done) and len(total) == 1
    assert done[-1] == total.pop() and lines[-1].endswith(", done") and "(100%)" in lines[-1]
    assert any("vectors/s" in line for line in lines)
    assert re.search(r"Stored [\d,]+ sentence vectors; all [\d,]+ distinct sentences have one \([\d.]+ s, "
                     r"[\d,.]+ vectors/s\)", result.stdout), result.stdout


def test_lines_are_paced_by_the_interval_and_the_last_one_always_comes() -> None:
    console = Console(record=True, width=200, force_terminal=False)
    now = [0.0]
    bar = WarmBar(console, clock=lambda: now[0], interval=10.0)
    bar.started(sentences=100, missing=40)
    for _ in range(3):  # 30 vectors in 3 s: no line is due yet
        now[0] += 1.0
        bar.advanced(10)
    now[0] += 9.0  # 12 s after the start
    bar.advanced(5)
    now[0] += 1.0
    bar.advanced(5)  # the last vector: a line at once

    lines = [line for line in console.export_text().splitlines() if line.startswith("veracity: warm:")]
    assert lines == [
        "veracity: warm: 35 of 40 sentence vectors stored (88%), 2.9 vectors/s, about 2 s left",
        "veracity: warm: 40 of 40 sentence vectors stored (100%), 3.1 vectors/s, done",
    ]


@pytest.mark.parametrize(("seconds", "said"), [(0.4, "0 s"), (45, "45 s"), (192, "3 min 12 s"), (3900, "1 h 05 min")])
def test_durations_read_as_people_say_them(seconds: float, said: str) -> None:
    assert duration(seconds) == said

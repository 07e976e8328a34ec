"""A verdict held back by risk control is unverifiable with its lean and confidence, on every surface.

Real offline checks against the demo knowledge base: at a target precision no threshold reaches
(0.99) the judge's supported verdict is held back; with the rule off (0) it stands, with its confidence.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from click.testing import CliRunner
from rich.console import Console

import veracity
from veracity.audit import audit_markdown, report_markdown
from veracity.cli import main
from veracity.cli.live import verdict_line
from veracity.cli.tables import print_report, verdict_table
from veracity.contracts import Report, confidence_text

OPENED = "The Sydney Opera House opened in 1973."
LEANS = re.compile(r"unverifiable, leans supported, 0\.\d\d")


@pytest.fixture(scope="module")
def held_back() -> Report:
    return veracity.check(OPENED, model="offline", search="kb", min_precision=0.99)


def test_the_verdict_is_unverifiable_and_carries_its_lean_and_confidence(held_back: Report) -> None:
    [verdict] = held_back.verdicts
    assert verdict.label == "unverifiable" and verdict.leaning == "supported"
    assert verdict.confidence is not None and 0 < verdict.confidence < 1
    shown = f"{math.floor(verdict.confidence * 100) / 100:.2f}"  # rounded down, in the reason and the label alike
    assert verdict.reason.startswith(f"Leans supported (confidence {shown})")
    assert LEANS.fullmatch(verdict.shown_label) and verdict.shown_label.endswith(shown)
    assert not held_back.passed and held_back.outcome == "fail"  # a lean never makes a text pass


def test_the_lean_shows_in_json_table_stream_and_markdown(held_back: Report) -> None:
    data = json.loads(held_back.model_dump_json())
    assert data["verdicts"][0]["leaning"] == "supported" and data["verdicts"][0]["confidence"] > 0
    [label_cell] = verdict_table(held_back).columns[0].cells
    assert LEANS.fullmatch(str(label_cell))  # the table's label column (wrapped on screen)
    console = Console(record=True, width=300)
    print_report(console, held_back)
    assert "leans supported" in console.export_text()
    claim = held_back.claims[0]
    assert LEANS.match(verdict_line(claim, held_back.verdicts[0]))
    assert LEANS.search(report_markdown(held_back))
    assert LEANS.search(audit_markdown(held_back))


def test_with_the_rule_off_the_judge_speaks_and_gives_its_confidence() -> None:
    report = veracity.check(OPENED, model="offline", search="kb", min_precision=0)
    [verdict] = report.verdicts
    assert verdict.label == "supported" and verdict.leaning is None
    assert verdict.confidence is not None
    assert verdict.shown_label == f"supported, {confidence_text(verdict.confidence)}"


def test_the_cli_takes_min_precision_and_rejects_a_bad_one() -> None:
    result = CliRunner().invoke(main, ["check", OPENED, "--search", "kb", "--min-precision", "0.99", "--json"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["verdicts"][0]["leaning"] == "supported"
    bad = CliRunner().invoke(main, ["check", OPENED, "--min-precision", "1.5"])
    assert bad.exit_code == 2 and "--min-precision" in bad.output


def test_a_bad_min_precision_setting_is_refused_before_any_work() -> None:
    with pytest.raises(ValueError, match="min_precision"):
        veracity.check(OPENED, model="offline", search="kb", min_precision=1.0)

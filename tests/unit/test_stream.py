"""`veracity check --stream`: verdicts shown as each claim is judged (real offline graph, source mode)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from veracity.cli import main
from veracity.cli.check import streamed
from veracity.contracts import Claim, Verdict
from veracity.cli.live import LiveVerdicts, verdict_line

POLICY = "Returns within 14 days. Return shipping costs 5 dollars."
ANSWER = "You can return it within 30 days. Return shipping costs 5 dollars."


def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "policy.txt"
    path.write_text(POLICY)
    return path


def test_lines_arrive_before_the_final_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", ANSWER, "--source", str(policy_file(tmp_path)), "--stream"])
    assert result.exit_code == 1, result.output
    first_two = result.stdout.splitlines()[:2]  # in the order the claims finish
    assert 'refuted: You can return it within 30 days. — "Returns within 14 days."' in first_two
    assert 'supported: Return shipping costs 5 dollars. — "Return shipping costs 5 dollars."' in first_two
    assert "2 claim(s): 1 supported, 1 refuted" in result.stdout  # then the usual report


def test_with_json_the_lines_go_to_stderr(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", ANSWER, "--source", str(policy_file(tmp_path)), "--stream", "--json"])
    report = json.loads(result.stdout)
    assert [v["label"] for v in report["verdicts"]] == ["refuted", "supported"]
    assert "refuted: You can return it within 30 days." in result.stderr


def test_a_terminal_gets_a_live_table() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    report = asyncio.run(streamed(ANSWER, console, {"model": "offline", "source_text": POLICY}))
    assert [v.label for v in report.verdicts] == ["refuted", "supported"]
    drawn = screen.getvalue()
    assert "claims judged" in drawn and "You can return it within 30 days." in drawn


def test_live_verdicts_track_claims_and_revisions() -> None:
    heard = []
    view = LiveVerdicts(on_verdict=lambda claim, verdict: heard.append((claim.id, verdict.label)))
    claims = [Claim(id="c1", text="A is B.", source="A is B.", span=(0, 7)),
              Claim(id="c2", text="C is D.", source="C is D.", span=(8, 15))]
    assert view("extraction_gate", {"claims": claims}) is True
    assert view("gather_evidence", {"evidence": {}}) is False
    first = Verdict(claim_id="c1", label="unverifiable", reason="nothing found")
    view("verdict_gate", {"verdicts": {"c1": first}})
    table = view.table()
    assert table.title == "1/2 claims judged" and table.row_count == 2
    revised = Verdict(claim_id="c1", label="refuted", reason="r", evidence_id="c1-e1", quote="A is not B.")
    view("verdict_gate", {"verdicts": {"c1": revised}})
    assert view.verdicts["c1"] is revised and heard == [("c1", "unverifiable"), ("c1", "refuted")]
    assert verdict_line(claims[0], revised) == 'refuted: A is B. — "A is not B."'

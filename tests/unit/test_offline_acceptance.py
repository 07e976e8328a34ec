"""The offline default end to end: no keys, no network, local splitter, judge and knowledge base."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import veracity
from veracity.cli import main

SYDNEY = ("The Sydney Opera House was designed by a Danish architect and opened in 1973. "
          "It has over 2,000 rooms and was funded entirely by the federal government.")
POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted.")
FAITHFUL = "You can return the package within 14 days of the delivery date. After that, returns are not accepted."
WARM_FAITHFUL = ("I completely understand how frustrating this must be, and I'm sorry for the trouble! "
                 "You can return the package within 14 days of the delivery date.")
WARM_PROMISE = ("I'm so sorry to hear that! Even though it has been more than 14 days since delivery, "
                "don't worry, we'll find some solution for you.")


@pytest.fixture
def kb_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty per-test knowledge-base location (seeded with the demo corpus on first use)."""
    path = tmp_path / "kb"
    monkeypatch.setenv("VERACITY_KB", str(path))
    return path


def test_sydney_paragraph_offline_with_the_demo_corpus(kb_dir: Path) -> None:
    report = veracity.check(SYDNEY)
    assert report.mode == "offline+kb"
    assert len(report.claims) == 4 and len(report.verdicts) == 4
    labels = {c.text: report.verdict_for(c.id).label for c in report.claims}
    for claim in report.claims:
        verdict = report.verdict_for(claim.id)
        assert verdict.quote, f"no quote for {claim.text}: {verdict.reason}"
        assert verdict.citation_verified
        assert report.evidence_by_id(verdict.evidence_id).backend == "kb"
        assert report.cited_evidence(verdict) is report.evidence_by_id(verdict.evidence_id)
    assert report.cited_evidence(None) is None
    assert labels["The Sydney Opera House has over 2,000 rooms."] != "supported"
    assert labels["The Sydney Opera House was funded entirely by the federal government."] != "supported"
    assert report.reliability_score is not None and report.hallucination_risk in {"LOW", "MEDIUM", "HIGH"}


def test_user_document_decides_against_sydney_as_capital(kb_dir: Path, tmp_path: Path) -> None:
    note = tmp_path / "australia.txt"
    note.write_text("Canberra is the capital city of Australia. Sydney is the capital of New South Wales.")
    runner = CliRunner()
    ingested = runner.invoke(main, ["ingest", str(note)])
    assert ingested.exit_code == 0, ingested.output
    claim = "Sydney is the capital of Australia."
    for precision, label, leaning in (("0.9", "unverifiable", "refuted"), ("0", "refuted", None)):
        # at the default target the offline judge's refutation is held back and leans; with the rule off it refutes
        result = runner.invoke(main, ["check", claim, "--search", "kb", "--json", "--min-precision", precision])
        data = json.loads(result.stdout)
        [verdict] = data["verdicts"]
        assert (verdict["label"], verdict["leaning"]) == (label, leaning)
        assert "Canberra is the capital city of Australia" in verdict["quote"]
        cited = next(e for e in data["evidence"] if e["id"] == verdict["evidence_id"])
        assert cited["url"] and Path(cited["url"]).name == "australia.txt"
        assert result.exit_code == 1


@pytest.mark.parametrize(("answer", "passes"), [(FAITHFUL, True), (WARM_FAITHFUL, True), (WARM_PROMISE, False)],
                         ids=["faithful", "warm-faithful", "warm-promise"])
def test_return_policy_offline(answer: str, passes: bool, tmp_path: Path) -> None:
    policy = tmp_path / "policy.txt"
    policy.write_text(POLICY)
    result = CliRunner().invoke(main, ["check", answer, "--source", str(policy), "--json"])
    data = json.loads(result.stdout)
    assert data["passed"] is passes, data["verdicts"]
    assert result.exit_code == (0 if passes else 1)
    assert data["claims"], "an answer with a fact must yield claims"
    assert not any("sorry" in c["text"].lower() or "understand" in c["text"].lower() for c in data["claims"])
    if not passes:
        failing = [v for v in data["verdicts"] if v["label"] != "supported"]
        assert any("we'll find some solution for you" in v["reason"] for v in failing)

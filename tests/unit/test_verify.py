"""`veracity verify`: an intact report holds; an edited quote, evidence, computation or count does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import veracity
from veracity.cli import main

TEXT = "The Sydney Opera House opened in 1973. It has over 2,000 rooms."


@pytest.fixture(scope="module")
def saved() -> dict:
    """A real offline check of a supported claim and a computed, refuted one, as report.json holds it."""
    report = veracity.check(TEXT, model="offline", search="kb", today="2026-11-24")
    assert [v.label for v in report.verdicts] == ["supported", "refuted"]
    assert report.verdicts[1].computation is not None
    return json.loads(report.model_dump_json())


def verify(data: dict, tmp_path: Path) -> tuple[int, str]:
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["verify", str(path)])
    return result.exit_code, result.stdout


def test_an_intact_report_holds(saved: dict, tmp_path: Path) -> None:
    code, out = verify(saved, tmp_path)
    assert code == 0, out
    assert "quote is in c1-e1" in out and "computation gives the same result" in out and "0 failed" in out


def edit_quote(data: dict) -> None:
    data["verdicts"][0]["quote"] = "The Sydney Opera House was formally opened in 1975."


def edit_evidence(data: dict) -> None:
    cited = next(e for e in data["evidence"] if e["id"] == data["verdicts"][0]["evidence_id"])
    cited["text"] = cited["text"].replace("1973", "1975")


def edit_computation(data: dict) -> None:
    data["verdicts"][1]["computation"]["text"] = data["verdicts"][1]["computation"]["text"].replace(
        "does not hold", "holds")
    data["verdicts"][1]["label"] = "supported"


def edit_computed_evidence(data: dict) -> None:
    for item in data["evidence"]:
        if item["claim_id"] == "c2":
            item["text"] = item["text"].replace("about 1,000 rooms", "about 3,000 rooms")


def edit_counts(data: dict) -> None:
    data["summary"]["refuted"] = 0
    data["summary"]["supported"] = 2


@pytest.mark.parametrize("edit", [edit_quote, edit_evidence, edit_computation, edit_computed_evidence, edit_counts])
def test_a_tampered_report_fails(saved: dict, tmp_path: Path, edit) -> None:
    data = json.loads(json.dumps(saved))
    edit(data)
    code, out = verify(data, tmp_path)
    assert code == 1 and "FAILS" in out, out


def test_a_file_that_is_not_a_report_is_exit_two(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text('{"hello": "world"}')
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 2 and "not a veracity report" in result.stderr
    missing = CliRunner().invoke(main, ["verify", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "cannot read" in missing.stderr

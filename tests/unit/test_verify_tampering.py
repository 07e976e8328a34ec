"""`veracity verify` on a report edited consistently: every edit fails, signed or not.

Each edit below also fixes what an editor with the project's own code would fix (the summary
counts, the reliability scores, the evaluation, `ok` and `passed`), so only a real check of
the report's structure, a second judgement, or the signature can show it.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from veracity.audit.structure import expected_evaluations
from veracity.cli import main
from veracity.contracts import Report, Summary
from veracity.scores import reliability

TEXT = "The Sydney Opera House opened in 1973. It has over 2,000 rooms."
Edit = Callable[[dict[str, Any]], dict[str, Any]]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A genuine offline check written with `check --out`: a folder with the signed report and the signing keys."""
    root = tmp_path_factory.mktemp("written")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (("VERACITY_KEYS", root / "keys"), ("VERACITY_KB", root / "kb"),
                            ("VERACITY_CACHE", root / "cache.sqlite")):
            patch.setenv(name, str(value))
        result = CliRunner().invoke(main, ["check", TEXT, "--model", "offline", "--search", "kb",
                                           "--today", "2026-11-24", "--out", str(root / "out")])
    assert result.exit_code == 1, result.output  # the second claim is refuted
    data = json.loads((root / "out" / "report.json").read_text())
    assert [(v["claim_id"], v["label"], v["computation"] is None) for v in data["verdicts"]] == [
        ("c1", "supported", True), ("c2", "refuted", False)]
    return root


def verify(written: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: Edit | None = None, *,
           signed: bool = True) -> tuple[int, str]:
    """Copy the written report, apply `edit` to its JSON, drop the signature unless `signed`; verify it."""
    monkeypatch.setenv("VERACITY_KEYS", str(written / "keys"))
    folder = tmp_path / "out"
    shutil.copytree(written / "out", folder)
    report = folder / "report.json"
    if edit is not None:
        report.write_text(json.dumps(edit(json.loads(report.read_text())), indent=2) + "\n")
    if not signed:
        (folder / "report.json.sig").unlink()
    result = CliRunner().invoke(main, ["verify", str(report)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, " ".join(result.output.split())


def consistent(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with its counts, reliability scores, evaluation, ok and passed derived again by the project's code."""
    report = Report.model_validate(data)
    labels = Counter(verdict.label for verdict in report.verdicts)
    summary = Summary(claims=len(report.claims), supported=labels["supported"], refuted=labels["refuted"],
                      unverifiable=labels["unverifiable"], failures=len(report.failures))
    scored = reliability(report.claims, report.verdicts, {v.claim_id: v.support_score for v in report.verdicts})
    report = report.model_copy(update={
        "summary": summary, "evidence_coverage": scored.evidence_coverage,
        "average_similarity": scored.average_similarity, "reliability_score": scored.reliability_score,
        "hallucination_risk": scored.hallucination_risk, "unsupported_claims": scored.unsupported_claims})
    evaluation = expected_evaluations(report)[0]
    report = report.model_copy(update={"evaluation": evaluation, "ok": evaluation.sound})
    edited: dict[str, Any] = json.loads(report.model_dump_json())
    return edited


def flip_label(data: dict[str, Any]) -> dict[str, Any]:
    data["verdicts"][0]["label"] = "refuted"
    return consistent(data)


def rewrite_claim(data: dict[str, Any]) -> dict[str, Any]:
    data["text"] = data["text"].replace("1973", "1975")
    for field in ("text", "source"):
        data["claims"][0][field] = data["claims"][0][field].replace("1973", "1975")
    return consistent(data)


def fabricate_evidence(data: dict[str, Any]) -> dict[str, Any]:
    fabricated = "The Sydney Opera House first opened its doors to the public in 1999."
    cited = next(item for item in data["evidence"] if item["id"] == data["verdicts"][0]["evidence_id"])
    cited["text"] = fabricated
    data["verdicts"][0]["quote"] = fabricated
    return consistent(data)


def drop_verdict(data: dict[str, Any]) -> dict[str, Any]:
    del data["verdicts"][0]
    return consistent(data)


def duplicate_verdict(data: dict[str, Any]) -> dict[str, Any]:
    data["verdicts"].append(dict(data["verdicts"][0]))
    return consistent(data)


def edit_ok(data: dict[str, Any]) -> dict[str, Any]:
    data["ok"] = not data["ok"]
    return data


def edit_passed(data: dict[str, Any]) -> dict[str, Any]:
    data["passed"] = not data["passed"]
    return data


def edit_risk(data: dict[str, Any]) -> dict[str, Any]:
    data["hallucination_risk"], data["reliability_score"] = "LOW", 0.95
    return data


def drop_quote(data: dict[str, Any]) -> dict[str, Any]:
    data["verdicts"][0]["quote"] = None
    return consistent(data)


EDITS = {
    flip_label: "c1: judged again, the offline judge says supported, not refuted",
    rewrite_claim: "c1: judged again, the offline judge says",
    fabricate_evidence: "c1: judged again, the offline judge says",
    drop_verdict: "c1: the claim has no verdict",
    duplicate_verdict: "c1: the claim has 2 verdicts, not one",
    edit_ok: "ok is False, but the report's rules give True",
    edit_passed: "passed is True, but the verdicts and failures give False",
    edit_risk: "reliability scores do not follow from the verdicts",
    drop_quote: "c1: supported, but the quote is empty",
}


def test_a_genuine_report_holds_with_its_signature(written: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = verify(written, tmp_path, monkeypatch)
    assert code == 0, out
    for expected in ("signature holds: signed by the local key", "one verdict per claim (2 claim(s))",
                     "evaluation matches the report's rules", "ok is True", "passed is False",
                     "reliability scores follow from the verdicts", "support scores match",
                     "c1: quote is in c1-e1", "c1: judged again: supported, on the same quote", "0 failed"):
        assert expected in out, expected


@pytest.mark.parametrize("edit", list(EDITS), ids=lambda edit: edit.__name__)
def test_a_consistent_edit_of_an_unsigned_report_fails(edit: Edit, written: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = verify(written, tmp_path, monkeypatch, edit, signed=False)
    assert code == 1 and "FAILS" in out, out
    assert "not signed" in out and EDITS[edit] in out, out


@pytest.mark.parametrize("edit", list(EDITS), ids=lambda edit: edit.__name__)
def test_any_edit_of_a_signed_report_fails_its_signature(edit: Edit, written: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = verify(written, tmp_path, monkeypatch, edit)
    assert code == 1 and "FAILS report: signature does not hold" in out, out


def test_an_edit_the_report_model_cannot_see_still_fails(written: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def extra_field(data: dict[str, Any]) -> dict[str, Any]:
        data["verdicts"][1]["verified_by"] = "an auditor"
        return data

    code, out = verify(written, tmp_path, monkeypatch, extra_field, signed=False)
    assert code == 1 and "$.verdicts[1].verified_by is not a report field" in out, out


def test_a_report_judged_by_another_offline_judge_version_fails_with_the_reason(
        written: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def other_judge(data: dict[str, Any]) -> dict[str, Any]:
        data["judge_version"] = "0.0.1+000000000000"
        return data

    code, out = verify(written, tmp_path, monkeypatch, other_judge, signed=False)
    assert code == 1 and "the report was judged by offline judge 0.0.1+000000000000, this is offline judge" in out


@pytest.mark.parametrize("said", [True, False])
def test_a_report_in_the_older_form_with_evaluation_passed_still_verifies_when_it_agrees_with_ok(
        said: bool, written: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def older_form(data: dict[str, Any]) -> dict[str, Any]:
        data["evaluation"]["passed"] = said  # reports before one pass/fail field carried this copy of `ok`
        return data

    code, out = verify(written, tmp_path, monkeypatch, older_form, signed=False)
    if said:  # the genuine report is ok
        assert code == 0 and "evaluation.passed (an older report's field for ok) is True, as ok is" in out, out
    else:
        assert code == 1 and "evaluation.passed (an older report's field for ok) is False, but ok is True" in out, out

"""Audit artefacts: report.json reads back as the report, report.md and audit.md say what was done."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from click.testing import CliRunner

import veracity
import veracity.api
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.audit import ARTEFACTS, write_artefacts
from veracity.cli import main

C1, C2 = "Canberra is the capital of Australia.", "Sydney is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."
NOTE2 = "Sydney is the largest city, but Canberra is the capital city of Australia."


@pytest.fixture
def scripted(world: FakeWorld) -> FakeWorld:
    world.extract(claims_reply((C1, C1), (C2, C2)))
    world.evidence(C1, [hit(NOTE, title="Australia note")])
    world.evidence(C2, [hit(NOTE2, title="Cities note")])
    world.judge(C1, verdict_reply("supported", "c1-e1", "a paraphrase not in the note"),
                verdict_reply("supported", "c1-e1", NOTE))
    world.judge(C2, verdict_reply("refuted", "c2-e1", NOTE2))
    return world


def test_the_three_artefacts_describe_the_check(scripted: FakeWorld, tmp_path: Path) -> None:
    report = veracity.check(f"{C1} {C2}", model=scripted.model(), backend=scripted.backend())
    written = write_artefacts(report, tmp_path / "audit")
    assert [path.name for path in written] == list(ARTEFACTS)
    assert veracity.Report.model_validate_json(written[0].read_text()) == report
    summary = written[1].read_text()
    # a scripted chat model, with no calibration measured for it
    assert "| supported, uncalibrated | Canberra is the capital of Australia. |" in summary
    assert "| refuted, uncalibrated | Sydney is the capital of Australia. |" in summary
    assert "Outcome: **fail**" in summary
    audit = written[2].read_text()
    for expected in ("## c1: Canberra is the capital of Australia.", "- the claim: “Canberra is the capital of "
                     "Australia.” (1 attempt(s), last ok: 1 item(s))", "`c1-e1` Australia note",
                     f"Deciding passage: `c1-e1`, quote “{NOTE}” (verified in the evidence)",
                     "Judge retries:", "attempt 1: retry:", f"mode `{report.mode}`",
                     f"model `{report.model}`"):
        assert expected in audit
    assert report.model == "custom:ScriptedChatModel"
    assert not list((tmp_path / "audit").glob(".*.part"))


def test_check_out_writes_the_artefacts_and_keeps_its_exit_code(scripted: FakeWorld, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(veracity.api, "acheck", functools.partial(veracity.api.acheck, model=scripted.model(),
                                                                  backend=scripted.backend()))
    result = CliRunner().invoke(main, ["check", f"{C1} {C2}", "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output  # one claim refuted, as without --out
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == sorted(ARTEFACTS)
    assert "wrote" in result.stderr and "audit.md" in result.stderr


def test_check_out_on_a_file_is_bad_usage(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    result = CliRunner().invoke(main, ["check", C1, "--out", str(taken)])
    assert result.exit_code == 2 and taken.read_text() == "keep me"


def test_report_md_and_audit_md_list_every_skipped_statement_with_its_reason(tmp_path: Path) -> None:
    text = ("Thanks for reaching out! The Eiffel Tower was completed in 1889. Is the museum open on Sundays? "
            "Paris is the most beautiful city in Europe.")
    report = veracity.check(text, model="offline", search="kb")
    _, summary, audit = (path.read_text() for path in write_artefacts(report, tmp_path / "audit")[:3])
    for markdown in (summary, audit):
        assert "## Not checked" in markdown
        assert "- **courtesy**: “Thanks for reaching out” (characters 0-23): courtesy, not a claim" in markdown
        assert ("- **question**: “Is the museum open on Sundays” (characters 65-94): a question, not a "
                "statement") in markdown
        assert ("- **opinion**: “Paris is the most beautiful city in Europe” (characters 96-138): an opinion or value "
                "judgement, not a checkable fact") in markdown

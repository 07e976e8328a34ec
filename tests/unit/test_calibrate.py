"""`veracity calibrate` and its use in checks: a chat-model judge calibrated on labelled rows, files named for
their judge, refusals (too few rows, another judge's file), and "uncalibrated" where no calibration exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.unit.calibration_data import claim, credulous_judge, museum_backend, write_rows
from veracity.calibrate.runner import MIN_ROWS, TooFewRows, acalibrate
from veracity.calibration.file import CalibrationFile, calibration_for, default_path
from veracity.calibration.identity import JudgeIdentity
from veracity.cli import main
from veracity.contracts import confidence_text
from veracity.errors import ConfigurationError
from veracity.run.checker import Checker
from veracity.testing import ScriptedChatModel

CHECK = {"extract_model": "offline", "counter_search": False, "verify_pages": False}
"""A one-claim check: the offline splitter, one search, no page fetch."""


@pytest.fixture(scope="module")
def chat_calibration(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A calibration of the credulous scripted judge on 240 labelled rows, written to a file."""
    folder = tmp_path_factory.mktemp("calibrate")
    rows = write_rows(folder / "rows.jsonl", 240)
    import asyncio

    result = asyncio.run(acalibrate(rows, mode="llm", model=credulous_judge(), out=folder / "judge.json"))
    assert set(result.paths) == {"calibration", "card", "diagram"}
    return folder / "judge.json"


def test_a_chat_model_is_calibrated_on_labelled_rows(chat_calibration: Path) -> None:
    calibration = CalibrationFile.read(chat_calibration)
    assert calibration.judge.kind == "chat" and calibration.judge.model == "custom:ScriptedChatModel"
    assert calibration.record["judged"] == 240 and calibration.record["groups"] == {"museums": 240}
    # It says supported on every row and is right on half: alone, no supported verdict is certified at 0.90,
    # but with the offline reading of its quote most of its right ones are.
    threshold = calibration.risk.threshold("supported", 0.9)
    assert threshold is not None
    card = chat_calibration.with_suffix(".md").read_text(encoding="utf-8")
    assert "| 0.90 |" in card and "AUC" in card and "judge.png" in card
    assert chat_calibration.with_suffix(".png").read_bytes().startswith(b"\x89PNG")


async def test_a_check_with_the_calibration_shows_confidences_and_holds_wrong_verdicts_back(
    chat_calibration: Path,
) -> None:
    checker = Checker(model=credulous_judge(), backend=museum_backend())
    right = await checker.acheck(claim(300), calibration=str(chat_calibration), **CHECK)
    wrong = await checker.acheck(claim(301), calibration=str(chat_calibration), **CHECK)
    kept, held = right.verdicts[0], wrong.verdicts[0]
    assert kept.label == "supported" and kept.confidence is not None and kept.confidence >= 0.9
    assert not kept.uncalibrated and kept.shown_label == f"supported, {confidence_text(kept.confidence)}"
    assert held.label == "unverifiable" and held.leaning == "supported" and held.confidence is not None
    assert held.shown_label.startswith("unverifiable, leans supported, 0.")
    assert "needs" in held.reason


async def test_a_calibration_kept_in_the_data_folder_is_found_for_its_judge(
    chat_calibration: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setenv("VERACITY_CALIBRATIONS", str(tmp_path))
    calibration = CalibrationFile.read(chat_calibration)
    calibration.write(default_path(calibration.judge))
    report = await Checker(model=credulous_judge(), backend=museum_backend()).acheck(claim(302), **CHECK)
    assert report.verdicts[0].confidence is not None and not report.verdicts[0].uncalibrated


async def test_a_chat_verdict_with_no_calibration_says_uncalibrated() -> None:
    report = await Checker(model=credulous_judge(), backend=museum_backend()).acheck(claim(301), **CHECK)
    verdict = report.verdicts[0]
    assert verdict.label == "supported" and verdict.uncalibrated and verdict.confidence is None
    assert verdict.shown_label == "supported, uncalibrated"


async def test_an_answer_given_as_json_text_is_marked_uncalibrated_too() -> None:
    # A model asked through a JSON schema or the prompt answers with text, not a tool call.
    from langchain_core.messages import AIMessage

    judge = credulous_judge()
    as_text = ScriptedChatModel(responder=lambda messages: AIMessage(content=json.dumps(judge.responder(messages))))
    report = await Checker(model=as_text, backend=museum_backend()).acheck(claim(301), structured_output="prompt",
                                                                           **CHECK)
    assert report.verdicts[0].shown_label == "supported, uncalibrated"


async def test_another_judges_calibration_file_is_refused_before_the_check(chat_calibration: Path,
                                                                           tmp_path: Path) -> None:
    other = CalibrationFile.read(chat_calibration)
    stranger = JudgeIdentity("chat", "openai:gpt-4.1-mini", "0" * 12, other.judge.judge_version)
    path = CalibrationFile(stranger, other.calibrator, other.risk).write(tmp_path / "other.json")
    with pytest.raises(ConfigurationError, match="was measured for openai:gpt-4.1-mini"):
        await Checker(model=credulous_judge(), backend=museum_backend()).acheck(
            claim(300), calibration=str(path), **CHECK)


def test_calibration_files_refuse_what_they_cannot_use(tmp_path: Path) -> None:
    (tmp_path / "not.json").write_text('{"models": {}}')
    with pytest.raises(ConfigurationError, match="not a calibration file"):
        CalibrationFile.read(tmp_path / "not.json")
    with pytest.raises(ConfigurationError, match="no such file"):
        CalibrationFile.read(tmp_path / "missing.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ConfigurationError, match="cannot read it"):
        CalibrationFile.read(tmp_path / "broken.json")
    judge = JudgeIdentity("offline", "offline", "", "1+abc")
    assert calibration_for(judge, "off") is None
    assert calibration_for(judge, None, folder=tmp_path) is None


async def test_too_few_rows_are_refused_with_how_many_are_needed(tmp_path: Path) -> None:
    rows = write_rows(tmp_path / "rows.jsonl", MIN_ROWS - 20)
    with pytest.raises(TooFewRows, match=f"at least {MIN_ROWS}.*add 20 more"):
        await acalibrate(rows, mode="llm", model=credulous_judge(), out=tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_the_command_calibrates_the_offline_judge_and_a_check_uses_the_file(tmp_path: Path) -> None:
    rows = write_rows(tmp_path / "rows.jsonl", MIN_ROWS)
    out = tmp_path / "offline.json"
    runner = CliRunner()
    result = runner.invoke(main, ["calibrate", str(rows), "--mode", "offline", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "calibrated the offline judge" in result.output and "precision 0.90" in result.output
    written = json.loads(out.read_text())
    assert written["judge"]["kind"] == "offline" and written["record"]["rows"] == MIN_ROWS
    assert out.with_suffix(".md").is_file() and out.with_suffix(".png").is_file()
    # A check of the offline judge with the file reads its confidences from it, not the shipped calibration.
    checker = Checker(backend=museum_backend())
    own = checker.check(claim(300), calibration=str(out), **CHECK).verdicts[0]
    shipped = checker.check(claim(300), **CHECK).verdicts[0]
    calibration = CalibrationFile.read(out)
    assert own.confidence is not None and shipped.confidence is not None and own.confidence != shipped.confidence
    assert own.leaning is None or own.confidence < (calibration.risk.threshold(own.leaning, 0.9) or 2)


def test_the_command_refuses_too_few_rows_and_other_kinds_of_row(tmp_path: Path) -> None:
    runner = CliRunner()
    few = runner.invoke(main, ["calibrate", str(write_rows(tmp_path / "few.jsonl", 10)), "--mode", "offline"])
    assert few.exit_code == 2 and f"needs at least {MIN_ROWS}" in few.output
    passes = tmp_path / "pass.jsonl"
    passes.write_text(json.dumps({"text": "The sky is blue.", "expected": {"pass": True}}) + "\n")
    wrong_kind = runner.invoke(main, ["calibrate", str(passes), "--mode", "offline"])
    assert wrong_kind.exit_code == 2 and "needs judge rows" in wrong_kind.output
    rows = str(write_rows(tmp_path / "rows.jsonl", MIN_ROWS))
    calibrated = runner.invoke(main, ["calibrate", rows, "--mode", "offline", "--set", "calibration=x.json"])
    assert calibrated.exit_code == 2 and "without a calibration" in calibrated.output
    searching = runner.invoke(main, ["calibrate", rows, "--search", "web"])
    assert searching.exit_code == 2 and "No such option" in searching.output  # the evidence is each row's own


async def test_token_log_probabilities_where_the_endpoint_returns_them_become_a_signal() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from veracity.calibration.signals import verdict_signals
    from veracity.contracts import Evidence, JudgeOutput
    from veracity.llm.calls import ask_structured
    from veracity.offline.plugin import shipped_judge
    from veracity.testing import ScriptedChatModel

    answer = json.dumps({"label": "supported", "reason": "r", "evidence_id": "c1-e1", "quote": "x"})
    metadata = {"logprobs": {"content": [{"token": "a", "logprob": -0.5}, {"token": "b", "logprob": -1.5}]}}
    with_logprobs = ScriptedChatModel(responder=lambda _: AIMessage(content=answer, response_metadata=metadata))
    reply = await ask_structured(with_logprobs, [HumanMessage("judge")], JudgeOutput, structured_output="prompt")
    assert reply.logprob == pytest.approx(-1.0)
    plain = ScriptedChatModel(responder=lambda _: AIMessage(content=answer))
    assert (await ask_structured(plain, [HumanMessage("judge")], JudgeOutput, structured_output="prompt")).logprob \
        is None
    evidence = [Evidence(id="c1-e1", claim_id="c1", backend="kb", text="The Marlow Museum opened in 1901.")]
    given = verdict_signals(claim(0), evidence, "supported", "c1-e1", None, shipped_judge(), logprob=-1.0)
    missing = verdict_signals(claim(0), evidence, "supported", "c1-e1", None, shipped_judge())
    assert (given["answer_logprob"], given["has_logprob"]) == (-1.0, 1.0)
    assert (missing["answer_logprob"], missing["has_logprob"]) == (0.0, 0.0)

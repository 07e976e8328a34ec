"""Every report names the calibration that ruled its verdicts (file, origin, digest, judge); /analyze and serve too."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import veracity
from tests.unit.calibration_data import claim, credulous_judge, museum_backend
from tests.unit.calibration_files import CHECK, kept_path, write_offline_calibration
from veracity.audit import audit_markdown
from veracity.contracts import Report
from veracity.errors import ConfigurationError
from veracity.offline.calibration.confidence import SHIPPED_PATH
from veracity.run.checker import Checker

TEXT = "The Sydney Opera House opened in 1973."
SHIPPED_SHA256 = hashlib.sha256(
    resources.files("veracity.offline").joinpath("assets/calibration/confidence.json").read_bytes()).hexdigest()


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    """A calibration file for the offline judge, named with --calibration."""
    return write_offline_calibration(tmp_path / "domain.json")


@pytest.fixture
def folder_file() -> Iterator[Path]:
    """The offline judge's calibration kept in the calibration folder, removed afterwards."""
    path = write_offline_calibration(kept_path())
    path.chmod(0o600)
    yield path
    path.unlink()


def test_an_offline_report_names_the_shipped_calibration_and_its_digest() -> None:
    calibration = veracity.check(TEXT, **CHECK).calibration
    assert calibration is not None
    assert (calibration.origin, calibration.path, calibration.sha256) == ("shipped", SHIPPED_PATH, SHIPPED_SHA256)
    assert calibration.judge.startswith("the offline judge")


def test_a_report_names_the_users_file_it_was_ruled_by(user_file: Path) -> None:
    calibration = veracity.check(TEXT, calibration=str(user_file), **CHECK).calibration
    assert calibration is not None and calibration.origin == "user"
    assert calibration.path == str(user_file.absolute())
    assert calibration.sha256 == hashlib.sha256(user_file.read_bytes()).hexdigest()


def test_a_file_found_in_the_calibration_folder_is_named_too(folder_file: Path) -> None:
    calibration = veracity.check(TEXT, **CHECK).calibration
    assert calibration is not None and calibration.origin == "user" and calibration.path == str(folder_file)


def test_every_verdict_is_ruled_by_the_file_the_run_read_at_its_start(user_file: Path) -> None:
    """The file is read once, before the run: removed once the run has started, the verdicts and the digest hold."""
    text = "The Sydney Opera House opened in 1973. The Eiffel Tower is in Paris. Mount Everest is in Nepal."
    digest = hashlib.sha256(user_file.read_bytes()).hexdigest()
    intact = Checker().check(text, calibration=str(user_file), **CHECK)
    removed = Checker().check(text, calibration=str(user_file), on_start=lambda *_: user_file.unlink(), **CHECK)
    assert not user_file.exists() and not removed.failures
    assert [(v.label, v.confidence) for v in removed.verdicts] == [(v.label, v.confidence) for v in intact.verdicts]
    assert removed.calibration is not None and removed.calibration.sha256 == digest


def test_source_mode_keeps_the_shipped_calibration_and_says_so(user_file: Path) -> None:
    report = veracity.check(TEXT, model="offline", source_text="The Sydney Opera House opened in 1973.",
                            calibration=str(user_file))
    assert report.calibration is not None and report.calibration.origin == "shipped"


async def test_an_uncalibrated_chat_judge_names_none() -> None:
    report = await Checker(model=credulous_judge(), backend=museum_backend()).acheck(
        claim(301), extract_model="offline", counter_search=False, verify_pages=False)
    assert report.verdicts[0].uncalibrated and report.calibration is None


async def test_a_chat_judges_report_names_its_calibration_file(tmp_path: Path) -> None:
    from veracity.calibration.file import CalibrationFile
    from veracity.calibration.identity import judge_identity
    from veracity.calibration.signals import SIGNALS
    from veracity.context import Context
    from veracity.offline.calibration.confidence import Calibrator, LogisticModel
    from veracity.offline.calibration.risk import default_risk_control

    judge = judge_identity(Context.from_settings(), "custom:ScriptedChatModel")
    constant = LogisticModel(SIGNALS, (0.0,) * len(SIGNALS), (1.0,) * len(SIGNALS), (0.0,) * len(SIGNALS), 3.0)
    models = Calibrator({"supported": constant, "refuted": constant, "unverifiable": constant})
    path = CalibrationFile(judge, models, default_risk_control()).write(tmp_path / "chat.json")
    report = await Checker(model=credulous_judge(), backend=museum_backend()).acheck(
        claim(300), calibration=str(path), extract_model="offline", counter_search=False, verify_pages=False)
    assert not report.verdicts[0].uncalibrated
    assert report.calibration is not None and report.calibration.origin == "user"
    assert report.calibration.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert report.calibration.judge.startswith("custom:ScriptedChatModel (judge prompt ")


def test_the_field_is_documented_and_optional() -> None:
    field = Report.model_fields["calibration"]
    assert field.description and "SHA-256" in field.description and field.default is None
    old = Report.model_validate({"text": "x", "evaluation": {}, "ok": True, "summary": {}})
    assert old.calibration is None


def test_the_audit_trail_says_which_calibration_ruled(user_file: Path) -> None:
    report = veracity.check(TEXT, calibration=str(user_file), **CHECK)
    trail = audit_markdown(report)
    assert f"- calibration: user file `{user_file.absolute()}` (sha256 {report.calibration.sha256[:12]})" in trail


def test_analyze_returns_the_calibration() -> None:
    from veracity.server.app import create_app

    app = create_app(model="offline", api_key="", search="kb", today=CHECK["today"], counter_search=False,
                     verify_pages=False)
    with TestClient(app) as client:
        answer = client.post("/analyze", json={"query": "When did it open?", "answer": TEXT})
    assert answer.status_code == 200, answer.text
    calibration = answer.json()["calibration"]
    assert (calibration["path"], calibration["origin"], calibration["sha256"]) == (SHIPPED_PATH, "shipped",
                                                                                   SHIPPED_SHA256)


def test_serve_logs_the_calibration_it_uses_at_start_up(caplog: pytest.LogCaptureFixture, folder_file: Path) -> None:
    from veracity.server.app import create_app

    with caplog.at_level(logging.INFO, logger="veracity.server.app"):
        create_app(model="offline", api_key="")
    logged = [record for record in caplog.records if record.getMessage().startswith("calibration:")]
    assert len(logged) == 1 and logged[0].levelno == logging.WARNING
    digest = hashlib.sha256(folder_file.read_bytes()).hexdigest()[:12]
    assert logged[0].getMessage().startswith(f"calibration: user file {folder_file} (sha256 {digest}...)")


def test_serve_logs_the_shipped_calibration_as_information(caplog: pytest.LogCaptureFixture) -> None:
    from veracity.server.app import create_app

    with caplog.at_level(logging.INFO, logger="veracity.server.app"):
        create_app(model="offline", api_key="")
    assert f"calibration: shipped file {SHIPPED_PATH} (sha256 {SHIPPED_SHA256[:12]}...)" in caplog.text


def test_serve_does_not_start_with_an_untrusted_file_in_the_folder(folder_file: Path) -> None:
    from veracity.server.app import create_app

    folder_file.chmod(0o666)
    with pytest.raises(ConfigurationError, match="it is writable by every user"):
        create_app(model="offline", api_key="")

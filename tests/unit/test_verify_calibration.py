"""`veracity verify` checks the calibration a report names: the file must still have the digest the report records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.unit.calibration_files import CHECK, edit, write_offline_calibration
from veracity.cli import main

TEXT = "The Sydney Opera House opened in 1973."


def check_options() -> list[str]:
    return ["--model", CHECK["model"], "--search", CHECK["search"], "--today", CHECK["today"], "--no-cache"]


def verify(report: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["verify", str(report)])
    return result.exit_code, " ".join(result.stdout.split())


@pytest.fixture
def checked(tmp_path: Path) -> tuple[Path, Path]:
    """A signed report (`check --out`) ruled by a user's calibration file: the report and the file."""
    calibration = write_offline_calibration(tmp_path / "domain.json")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["check", TEXT, "--calibration", str(calibration), "--out", str(out),
                                       *check_options()])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "report.json").read_text())["calibration"]["origin"] == "user"
    assert (out / "report.json.sig").is_file()
    return out / "report.json", calibration


def test_the_calibration_file_unchanged_holds(checked: tuple[Path, Path]) -> None:
    report, calibration = checked
    code, said = verify(report)
    assert code == 0, said
    assert f"calibration file {calibration.absolute()} has the digest the report records" in said
    assert "signature" in said and "0 failed" in said


def test_a_calibration_file_changed_since_the_report_fails(checked: tuple[Path, Path]) -> None:
    report, calibration = checked
    edit(calibration, lambda data: data["risk"].__setitem__("thresholds", {"supported": [0] * 50,
                                                                            "refuted": [0] * 50}))
    code, said = verify(report)
    assert code == 1, said
    assert f"calibration file {calibration.absolute()} changed since the report was made" in said


def test_a_calibration_file_no_longer_there_is_a_warning_not_a_failure(checked: tuple[Path, Path]) -> None:
    report, calibration = checked
    calibration.unlink()
    code, said = verify(report)
    assert code == 0, said
    assert "warning report: calibration file" in said and "cannot be compared with the report's digest" in said
    assert "1 warning(s)" in said


def test_the_shipped_calibration_is_compared_with_the_one_installed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["check", TEXT, "--out", str(out), *check_options()])
    assert result.exit_code == 0, result.output
    code, said = verify(out / "report.json")
    assert code == 0 and "the shipped calibration installed here is the one the report names" in said
    data = json.loads((out / "report.json").read_text())
    data["calibration"]["sha256"] = "0" * 64
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    code, said = verify(other)
    assert code == 1, said
    assert f"ruled by a shipped calibration with sha256 {'0' * 12}, but the one installed here has" in said

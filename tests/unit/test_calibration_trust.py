"""The calibration folder is trusted like ~/.ssh, and calibration files are never written through a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.unit.calibration_data import write_rows
from tests.unit.calibration_files import CHECK, kept_path, offline_judge, write_offline_calibration
from veracity.calibrate.runner import MIN_ROWS
from veracity.calibration.file import CalibrationFile, CalibrationWriteError, calibration_for, default_path, write_file
from veracity.calibration.identity import JudgeIdentity
from veracity.cli import main
from veracity.errors import ConfigurationError

posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes and owners are POSIX's")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A private calibration folder."""
    made = tmp_path / "calibration"
    made.mkdir(mode=0o700)
    return made


@pytest.fixture
def kept(folder: Path) -> Path:
    """The offline judge's calibration kept in `folder`, the user's own and private."""
    path = write_offline_calibration(default_path(offline_judge(), folder))
    path.chmod(0o600)
    return path


def test_the_users_own_file_in_the_folder_is_used(folder: Path, kept: Path) -> None:
    found = calibration_for(offline_judge(), None, folder)
    assert found is not None and found.path == kept


def test_a_symlink_in_the_folder_is_refused(folder: Path, tmp_path: Path, kept: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    kept.rename(elsewhere)
    kept.symlink_to(elsewhere)
    with pytest.raises(ConfigurationError, match=f"calibration file {kept}: it is a symbolic link"):
        calibration_for(offline_judge(), None, folder)
    elsewhere.unlink()  # a link to nothing is refused too, not taken for no file
    with pytest.raises(ConfigurationError, match="it is a symbolic link"):
        calibration_for(offline_judge(), None, folder)


@posix_only
def test_a_world_writable_file_in_the_folder_is_refused(folder: Path, kept: Path) -> None:
    kept.chmod(0o666)
    with pytest.raises(ConfigurationError, match=f"calibration file {kept}: it is writable by every user"):
        calibration_for(offline_judge(), None, folder)


@posix_only
def test_a_file_owned_by_another_user_is_refused(folder: Path, kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    owner = kept.stat().st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    with pytest.raises(ConfigurationError, match=f"it is owned by another user \\(uid {owner}, not {owner + 1}\\)"):
        calibration_for(offline_judge(), None, folder)


@posix_only
@pytest.mark.parametrize("mode", [0o777, 0o1777], ids=["world-writable", "world-writable with the sticky bit"])
def test_a_file_in_a_world_writable_folder_is_refused(folder: Path, kept: Path, mode: int) -> None:
    folder.chmod(mode)
    try:
        with pytest.raises(ConfigurationError, match=f"it is in {folder}, a folder every user may write to"):
            calibration_for(offline_judge(), None, folder)
    finally:
        folder.chmod(0o700)


def test_a_file_in_the_folder_measured_for_another_judge_is_refused(folder: Path, kept: Path) -> None:
    calibration = CalibrationFile.read(kept)
    other = JudgeIdentity("offline", "offline", "", "0.0.1+000000000000")
    kept.unlink()
    CalibrationFile(other, calibration.calibrator, calibration.risk).write(default_path(offline_judge(), folder))
    with pytest.raises(ConfigurationError, match="in the calibration folder is named for the offline judge"):
        calibration_for(offline_judge(), None, folder)


@posix_only
def test_a_file_named_explicitly_only_has_to_be_a_regular_file(tmp_path: Path) -> None:
    real = write_offline_calibration(tmp_path / "real.json")
    real.chmod(0o666)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    found = calibration_for(offline_judge(), str(link), tmp_path / "unused")
    assert found is not None and found.sha256 == CalibrationFile.read(real).sha256


@posix_only
def test_check_refuses_an_untrusted_file_in_the_folder_with_exit_2() -> None:
    path = write_offline_calibration(kept_path())
    path.chmod(0o666)
    try:
        result = CliRunner().invoke(main, ["check", "The Sydney Opera House opened in 1973.", "--model", "offline",
                                           "--search", "kb", "--today", CHECK["today"], "--no-cache"])
    finally:
        path.unlink()
    assert result.exit_code == 2, result.output
    assert "it is writable by every user" in " ".join(result.output.split())


def test_writing_through_a_symlink_is_refused_and_the_target_is_untouched(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("keep me")
    link = tmp_path / "offline.json"
    link.symlink_to(target)
    with pytest.raises(CalibrationWriteError, match=f"cannot write the calibration: {link} is a symbolic link"):
        write_offline_calibration(link)
    card = tmp_path / "offline.md"
    card.symlink_to(target)
    with pytest.raises(CalibrationWriteError, match=f"{card} is a symbolic link"):
        write_file(card, b"# card")
    assert target.read_text() == "keep me"


@pytest.mark.parametrize("linked", [".json", ".md", ".png"])
def test_calibrate_refuses_a_symlink_at_any_target_with_exit_2_before_judging(tmp_path: Path, linked: str) -> None:
    rows = write_rows(tmp_path / "rows.jsonl", MIN_ROWS)
    target = tmp_path / "target.txt"
    target.write_text("keep me")
    out = tmp_path / "domain.json"
    out.with_suffix(linked).symlink_to(target)
    result = CliRunner().invoke(main, ["calibrate", str(rows), "--mode", "offline", "--out", str(out)])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "cannot write" in said and "is a symbolic link" in said and "Traceback" not in said
    assert target.read_text() == "keep me"
    assert not any(path.exists() and not path.is_symlink() for path in (out, out.with_suffix(".md"),
                                                                        out.with_suffix(".png")))

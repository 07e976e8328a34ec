"""Files named by a user: FIFOs, devices and folders refused before reading, sizes capped, and no write through a link.

Each case is what an outside test found: a FIFO given to `eval` or `batch` blocked for ever, `calibrate
/dev/zero` ended in a MemoryError, and a symlink planted at an output path had its target overwritten.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from veracity.cli import main
from veracity.evaluation.dataset import DatasetError, load_dataset
from veracity.user_files import FileRefused, open_regular_file, read_regular_file, refuse_unwritable, write_atomically

ROW = {"claim": "The Eiffel Tower is in Paris.", "evidence": ["The Eiffel Tower stands in Paris."],
       "label": "supported"}


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    os.mkfifo(path)
    return path


def test_special_files_are_refused_before_they_are_opened(fifo: Path, tmp_path: Path) -> None:
    for path, kind in ((fifo, "FIFO"), (Path("/dev/zero"), "character device"), (tmp_path, "folder")):
        with pytest.raises(FileRefused, match=f"not a regular file \\(a {kind}\\)"):
            read_regular_file(path, 1000)
        with pytest.raises(FileRefused, match="not a regular file"):
            open_regular_file(path, 1000)


def test_a_file_over_the_cap_is_refused_with_the_cap_named(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"x" * 2001)
    with pytest.raises(FileRefused, match="larger than 2,000 bytes"):
        read_regular_file(path, 2000)
    assert read_regular_file(path, 2001) == b"x" * 2001


def test_a_write_replaces_the_file_whole_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.json"]


def test_a_symlink_at_the_target_is_refused_and_its_target_is_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "card.md"
    link.symlink_to(victim)
    with pytest.raises(FileRefused, match="is a symbolic link"):
        write_atomically(link, b"overwritten")
    assert victim.read_text() == "precious" and link.is_symlink()


def test_a_link_planted_under_the_old_temporary_names_redirects_nothing(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    target = tmp_path / "calibration.json"
    for planted in (".calibration.json.tmp", ".calibration.json.part", "calibration.json.part"):
        (tmp_path / planted).symlink_to(victim)
    write_atomically(target, b"{}")
    assert target.read_bytes() == b"{}" and victim.read_text() == "precious"


def test_a_fifo_or_folder_at_an_output_path_is_refused(fifo: Path, tmp_path: Path) -> None:
    for path in (fifo, tmp_path):
        with pytest.raises(FileRefused, match="not a regular file"):
            refuse_unwritable(path)
    refuse_unwritable(tmp_path / "new.jsonl")  # a path not there yet is fine


def test_a_dataset_that_is_not_a_regular_file_is_refused(fifo: Path, tmp_path: Path) -> None:
    for path in (fifo, Path("/dev/zero"), tmp_path):
        with pytest.raises(DatasetError, match="not a regular file"):
            load_dataset(path)
    with pytest.raises(DatasetError, match="no such file"):
        load_dataset(tmp_path / "missing.jsonl")


@pytest.mark.parametrize("command", [["eval"], ["calibrate", "--mode", "offline"]])
def test_eval_and_calibrate_refuse_a_fifo_and_a_device_with_exit_2(command: list[str], fifo: Path) -> None:
    for path in (fifo, Path("/dev/zero")):
        result = CliRunner().invoke(main, [command[0], str(path), *command[1:]])
        assert result.exit_code == 2, result.output
        assert "not a regular file" in " ".join(result.output.split())
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_batch_refuses_a_fifo_input_and_a_linked_output_before_checking_anything(fifo: Path, tmp_path: Path) -> None:
    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"text": "The Eiffel Tower is in Paris."}) + "\n")
    victim = tmp_path / "victim.csv"
    victim.write_text("precious")
    linked = tmp_path / "linked.jsonl"
    linked.symlink_to(victim)
    cases = [
        ([str(fifo), "--out", str(tmp_path / "out.jsonl")], "not a regular file"),
        ([str(rows), "--out", str(linked)], "symbolic link"),
        ([str(rows), "--out", str(tmp_path / "out.jsonl"), "--summary", str(linked)], "symbolic link"),
    ]
    for arguments, reason in cases:
        result = CliRunner().invoke(main, ["batch", *arguments, "--model", "offline"])
        assert result.exit_code == 2 and reason in " ".join(result.output.split()), result.output
    assert victim.read_text() == "precious"
    assert not (tmp_path / "out.jsonl").exists()


def test_eval_does_not_write_its_report_through_a_link(tmp_path: Path) -> None:
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text(json.dumps(ROW) + "\n")
    victim = tmp_path / "victim.md"
    victim.write_text("precious")
    report = tmp_path / "report.md"
    report.symlink_to(victim)
    result = CliRunner().invoke(main, ["eval", str(dataset), "--mode", "offline", "--out", str(report)])
    assert result.exit_code == 2 and "symbolic link" in " ".join(result.output.split()), result.output
    assert victim.read_text() == "precious"


def test_check_does_not_write_audit_files_through_a_link(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.json"
    victim.write_text("precious")
    (out / "report.json").symlink_to(victim)
    result = CliRunner().invoke(main, ["check", "The Eiffel Tower is in Paris.", "--model", "offline",
                                       "--out", str(out)])
    assert result.exit_code == 2 and "symbolic link" in " ".join(result.output.split()), result.output
    assert victim.read_text() == "precious"

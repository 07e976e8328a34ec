"""A calibration file is checked field by field: a hand edit that would change labels is refused, naming the field."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.unit.calibration_files import CHECK, edit, kept_path, write_offline_calibration
from veracity.calibration.file import MAX_CALIBRATION_BYTES, CalibrationFile
from veracity.calibration.schema import ModelsSection, RiskSection
from veracity.cli import main
from veracity.errors import ConfigurationError
from veracity.offline.calibration.confidence import shipped_calibration

Edit = Callable[[dict[str, Any]], None]


def thresholds(label: str, index: int, value: Any) -> Edit:
    return lambda data: data["risk"]["thresholds"][label].__setitem__(index, value)


def setting(section: str, key: str, value: Any) -> Edit:
    return lambda data: data[section].__setitem__(key, value)


def model(label: str, key: str, index: int | None, value: Any) -> Edit:
    def change(data: dict[str, Any]) -> None:
        if index is None:
            data["models"][label][key] = value
        else:
            data["models"][label][key][index] = value
    return change


REFUSED: list[tuple[str, Edit, str]] = [
    ("threshold negative", thresholds("refuted", 2, -0.1), "risk.thresholds.refuted.2: must be within [0, 1]"),
    ("threshold above 1", thresholds("supported", 2, 1.5), "risk.thresholds.supported.2: must be within [0, 1]"),
    ("threshold a string", thresholds("refuted", 2, "0.9"), "risk.thresholds.refuted.2: must be a valid number"),
    ("threshold true", thresholds("refuted", 2, True), "risk.thresholds.refuted.2: must be a valid number"),
    ("threshold NaN", thresholds("refuted", 2, math.nan), "risk.thresholds.refuted.2: must be within [0, 1]"),
    ("threshold infinite", thresholds("refuted", 2, math.inf), "risk.thresholds.refuted.2: must be within [0, 1]"),
    ("threshold lower at a higher level", thresholds("refuted", 41, 0.5),
     "risk.thresholds.refuted: needs 0.5 at index 41, less than the 0.94"),
    ("threshold above a level with none", thresholds("supported", 47, 0.95),
     "risk.thresholds.supported: certifies 0.95 at index 47"),
    ("one threshold fewer than levels", lambda data: data["risk"]["thresholds"]["refuted"].pop(),
     "risk.thresholds: refuted has 49 thresholds for 50 levels"),
    ("a label's thresholds deleted", lambda data: data["risk"]["thresholds"].pop("supported"),
     "risk.thresholds.supported: is missing"),
    ("every level 0.9", lambda data: data["risk"].__setitem__("levels", [0.9] * 50),
     "risk.levels: must strictly increase: 0.9 at index 1 follows 0.9"),
    ("levels out of order", lambda data: data["risk"]["levels"].reverse(), "risk.levels: must strictly increase"),
    ("a level above 1", lambda data: data["risk"]["levels"].__setitem__(49, 1.5),
     "risk.levels.49: must be within [0, 1]"),
    ("delta 0", setting("risk", "delta", 0), "risk.delta: must be within (0, 1)"),
    ("delta 1", setting("risk", "delta", 1), "risk.delta: must be within (0, 1)"),
    ("delta a string", setting("risk", "delta", "0.1"), "risk.delta: must be a valid number"),
    ("refuted model deleted", lambda data: data["models"].pop("refuted"), "models.refuted: is missing"),
    ("unverifiable model deleted", lambda data: data["models"].pop("unverifiable"), "models.unverifiable: is missing"),
    ("a model for an unknown label", lambda data: data["models"].__setitem__("maybe", data["models"]["supported"]),
     "models.maybe: is not a field of a calibration file"),
    ("weight NaN", model("supported", "weights", 3, math.nan), "models.supported.weights.3: must be a finite number"),
    ("weight a string", model("refuted", "weights", 0, "1"), "models.refuted.weights.0: must be a valid number"),
    ("bias infinite", model("refuted", "bias", None, -math.inf), "models.refuted.bias: must be a finite number"),
    ("scale 0", model("supported", "scale", 0, 0), "models.supported.scale.0: must be a positive finite number"),
    ("one mean too few", lambda data: data["models"]["supported"]["mean"].pop(),
     "models.supported.mean: has 27 values for 28 features"),
    ("a feature twice", model("supported", "features", 1, "p_for"), "models.supported.features: names ['p_for']"),
    ("a misspelt feature", model("unverifiable", "features", 0, "p_fro"),
     "models: unverifiable reads ['p_fro'], signals that offline judges do not give"),
    ("judge deleted", lambda data: data.pop("judge"), "judge: is missing"),
    ("judge of an unknown kind", setting("judge", "kind", "human"), "judge.kind: must be 'offline' or 'chat'"),
    ("offline judge with a prompt", setting("judge", "prompt_version", "1a2b3c4d5e6f"),
     "judge.prompt_version: must be empty for the offline judge"),
    ("judge version empty", setting("judge", "judge_version", ""), "judge.judge_version: must have at least 1"),
    ("judge a string", lambda data: data.__setitem__("judge", "offline"), "judge: must be a JSON object"),
    ("an unknown top-level field", lambda data: data.__setitem__("override", {}),
     "override: is not a field of a calibration file"),
    ("an unknown field in risk", setting("risk", "note", "x"), "risk.note: is not a field of a calibration file"),
    ("record a list", lambda data: data.__setitem__("record", []), "record: must be a JSON object"),
    ("version 2", lambda data: data.__setitem__("version", 2), "calibration file version 2"),
    ("version true", lambda data: data.__setitem__("version", True), "calibration file version True"),
    ("no format", lambda data: data.pop("format"), "not a calibration file"),
]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a calibration file the code wrote."""
    return write_offline_calibration(tmp_path_factory.mktemp("written") / "offline.json").read_bytes()


def test_a_written_file_reads_back_with_its_digest(written: bytes, tmp_path: Path) -> None:
    path = tmp_path / "offline.json"
    path.write_bytes(written)
    calibration = CalibrationFile.read(path)
    origin = calibration.origin()
    assert origin.origin == "user" and origin.path == str(path.absolute())
    import hashlib

    assert origin.sha256 == hashlib.sha256(written).hexdigest() == calibration.sha256
    assert origin.judge.startswith("the offline judge ")


@pytest.mark.parametrize(("change", "said"), [(change, said) for _, change, said in REFUSED],
                         ids=[name for name, _, _ in REFUSED])
def test_an_edited_file_is_refused_naming_the_file_and_the_field(written: bytes, tmp_path: Path, change: Edit,
                                                                 said: str) -> None:
    path = tmp_path / "edited.json"
    path.write_bytes(written)
    edit(path, change)
    with pytest.raises(ConfigurationError) as refused:
        CalibrationFile.read(path)
    assert str(refused.value).startswith(f"calibration file {path}: ")
    assert said in str(refused.value)


def test_a_file_with_many_problems_names_the_first_few(written: bytes, tmp_path: Path) -> None:
    path = tmp_path / "many.json"
    path.write_bytes(written)
    edit(path, lambda data: data["risk"]["thresholds"].__setitem__("refuted", ["x"] * 50))
    message = str(pytest.raises(ConfigurationError, CalibrationFile.read, path).value)
    assert "risk.thresholds.refuted.0: must be a valid number" in message and "and 47 more" in message


def test_thresholds_of_zero_are_within_bounds_and_the_digest_shows_the_change(written: bytes, tmp_path: Path) -> None:
    # 0 certifies every answer: the schema allows it (it is a threshold), the digest tells it from the file written.
    path = tmp_path / "zero.json"
    path.write_bytes(written)
    edit(path, lambda data: data["risk"].__setitem__("thresholds", {"supported": [0] * 50, "refuted": [0] * 50}))
    original = tmp_path / "original.json"
    original.write_bytes(written)
    assert CalibrationFile.read(path).sha256 != CalibrationFile.read(original).sha256


@pytest.mark.parametrize("data", [b"{", b"[" * 100_000, b"\xff\xfe", b"[1, 2]", b"null"],
                         ids=["cut short", "nested too deep", "not text", "a list", "null"])
def test_a_file_that_is_not_a_json_object_is_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(ConfigurationError, match=f"calibration file {path}: "):
        CalibrationFile.read(path)


def test_a_file_too_large_a_folder_or_a_fifo_is_refused_without_reading(tmp_path: Path) -> None:
    large = tmp_path / "large.json"
    large.write_bytes(b" " * (MAX_CALIBRATION_BYTES + 1))
    with pytest.raises(ConfigurationError, match=f"{large}: it is larger than {MAX_CALIBRATION_BYTES:,} bytes"):
        CalibrationFile.read(large)
    with pytest.raises(ConfigurationError, match="it is not a regular file \\(a folder\\)"):
        CalibrationFile.read(tmp_path)
    import os

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(ConfigurationError, match="it is not a regular file \\(a FIFO\\)"):
        CalibrationFile.read(fifo)


def test_what_the_code_would_refuse_it_does_not_write(written: bytes, tmp_path: Path) -> None:
    path = tmp_path / "offline.json"
    path.write_bytes(written)
    calibration = CalibrationFile.read(path)
    broken = CalibrationFile(calibration.judge, calibration.calibrator,
                             type(calibration.risk)(calibration.risk.levels, calibration.risk.thresholds, 1.5))
    with pytest.raises(ValueError, match="risk.delta: must be within \\(0, 1\\)"):
        broken.write(tmp_path / "broken.json")
    assert not (tmp_path / "broken.json").exists()


@pytest.mark.parametrize("section", [None, "source", "calculator", "permission", "difference"])
def test_the_shipped_calibration_keeps_the_same_rules(section: str | None) -> None:
    shipped = shipped_calibration() if section is None else shipped_calibration()[section]
    RiskSection.model_validate(shipped["risk"])
    if "models" in shipped:
        ModelsSection.model_validate(shipped["models"])


def test_check_with_a_bad_file_named_exits_2_naming_the_field(written: bytes, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(written)
    edit(path, thresholds("refuted", 2, "0.9"))
    result = CliRunner().invoke(main, ["check", "The Sydney Opera House opened in 1973.", "--calibration", str(path),
                                       *_options()])
    assert result.exit_code == 2, result.output
    assert "risk.thresholds.refuted.2: must be a valid number" in " ".join(result.output.split())


def test_check_with_a_bad_file_in_the_calibration_folder_exits_2(written: bytes) -> None:
    path = kept_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(written)
    path.chmod(0o600)
    edit(path, lambda data: data["models"].pop("refuted"))
    try:
        result = CliRunner().invoke(main, ["check", "The Sydney Opera House opened in 1973.", *_options()])
    finally:
        path.unlink()
    assert result.exit_code == 2, result.output
    assert "models.refuted: is missing" in " ".join(result.output.split())


def _options() -> list[str]:
    return ["--model", CHECK["model"], "--search", CHECK["search"], "--today", CHECK["today"], "--no-cache"]


def test_json_written_by_write_is_strict(written: bytes) -> None:
    json.loads(written, parse_constant=lambda name: pytest.fail(f"non-standard JSON constant {name}"))

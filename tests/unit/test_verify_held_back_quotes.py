"""`veracity verify` checks the quote of every verdict, decisive or held back: an invented closest quote fails."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from veracity.cli import main

TEXT = "You can return the package within 30 days."
POLICY = "The customer may return a package within 14 days of the delivery date."
INVENTED = "Packages may be returned within 30 days of delivery."


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A genuine offline check against a policy, written with `check --out`: its verdict is held back, with a quote."""
    root = tmp_path_factory.mktemp("written")
    policy = root / "policy.txt"
    policy.write_text(POLICY, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (("VERACITY_KEYS", root / "keys"), ("VERACITY_CACHE", root / "cache.sqlite")):
            patch.setenv(name, str(value))
        result = CliRunner().invoke(main, ["check", TEXT, "--model", "offline", "--source", str(policy),
                                           "--out", str(root / "out")])
    assert result.exit_code == 1, result.output
    [verdict] = json.loads((root / "out" / "report.json").read_text())["verdicts"]
    assert (verdict["label"], verdict["leaning"]) == ("unverifiable", "refuted")
    assert verdict["quote"] and verdict["evidence_id"]
    return root


def verify_unsigned(written: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    edit: Any = None) -> tuple[int, str]:
    monkeypatch.setenv("VERACITY_KEYS", str(written / "keys"))
    folder = tmp_path / "out"
    shutil.copytree(written / "out", folder)
    (folder / "report.json.sig").unlink()
    report = folder / "report.json"
    if edit is not None:
        data = json.loads(report.read_text())
        edit(data["verdicts"][0])
        report.write_text(json.dumps(data, indent=2) + "\n")
    result = CliRunner().invoke(main, ["verify", str(report)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, " ".join(result.output.split())


def test_a_genuine_held_back_quote_holds(written: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = verify_unsigned(written, tmp_path, monkeypatch)
    assert code == 0, out
    assert "c1: closest quote is in c1-e1" in out


def invent_quote(verdict: dict[str, Any]) -> None:
    verdict["quote"] = INVENTED


def cite_another_item(verdict: dict[str, Any]) -> None:
    verdict["evidence_id"] = "c1-e9"


def quote_without_citation(verdict: dict[str, Any]) -> None:
    verdict["evidence_id"] = None


@pytest.mark.parametrize(("edit", "finding"), [
    (invent_quote, f"c1: unverifiable, but the quote {INVENTED!r} does not appear verbatim in the cited evidence"),
    (cite_another_item, "c1: unverifiable, but its quote cites 'c1-e9', which was not retrieved for this claim"),
    (quote_without_citation, "c1: unverifiable, but it carries a quote that cites no evidence item"),
], ids=lambda value: getattr(value, "__name__", "finding"))
def test_an_invented_closest_quote_fails_verify(edit: Any, finding: str, written: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = verify_unsigned(written, tmp_path, monkeypatch, edit)
    assert code == 1 and "FAILS c1" in out, out
    assert finding in out, out

"""`Report.passed` (the text holds up) is not `Report.ok` (the check is sound)."""

from __future__ import annotations

import json

from veracity.contracts import Claim, Evaluation, GateFailure, Report, Summary, Verdict


def report(*labels: str, failures: list[GateFailure] | None = None) -> Report:
    claims = [Claim(id=f"c{n}", text=f"Claim {n}.", source=f"Claim {n}.", span=(0, 8))
              for n in range(1, len(labels) + 1)]
    verdicts = [Verdict(claim_id=claim.id, label=label, reason="r")
                for claim, label in zip(claims, labels, strict=True)]
    counts = {label: labels.count(label) for label in ("supported", "refuted", "unverifiable")}
    return Report(
        text="…", claims=claims, verdicts=verdicts, failures=failures or [], evaluation=Evaluation(),
        ok=not failures, summary=Summary(claims=len(claims), failures=len(failures or []), **counts),
    )


def test_a_sound_check_of_a_refuted_text_is_ok_but_does_not_pass() -> None:
    checked = report("supported", "refuted")
    assert checked.ok and not checked.passed and checked.outcome == "fail"


def test_unverifiable_fails_too_and_every_supported_claim_passes() -> None:
    assert not report("supported", "unverifiable").passed
    assert report("supported", "supported").passed
    assert report().passed  # no checkable claim: nothing is asserted


def test_a_failure_is_incomplete_never_passed() -> None:
    failure = GateFailure(step="judge", claim_id="c1", attempts=3, errors=["bad"], message="judge failed")
    incomplete = report("supported", failures=[failure])
    assert not incomplete.passed and incomplete.outcome == "incomplete"


def test_passed_is_in_the_json_report() -> None:
    assert json.loads(report("refuted").model_dump_json())["passed"] is False
    assert report("supported").model_dump()["passed"] is True


def keys_named(data: object, name: str, path: str = "$") -> list[str]:
    """Where in the JSON `data` a key called `name` occurs."""
    if isinstance(data, dict):
        return [found for key, value in data.items()
                for found in ([f"{path}.{key}"] if key == name else []) + keys_named(value, name, f"{path}.{key}")]
    if isinstance(data, list):
        return [found for n, item in enumerate(data) for found in keys_named(item, name, f"{path}[{n}]")]
    return []


def test_one_field_of_the_json_report_says_pass_or_fail() -> None:
    failing = json.loads(report("supported", "refuted").model_dump_json())
    assert keys_named(failing, "passed") == ["$.passed"] and failing["passed"] is False
    assert failing["ok"] is True and failing["evaluation"] == {"issues": []}  # a sound check of a failing text


def test_a_report_written_with_evaluation_passed_still_reads() -> None:
    older = json.loads(report("supported").model_dump_json())
    older["evaluation"]["passed"] = True  # what reports said before: the check is sound

    read = Report.model_validate(older)

    assert read.passed and read.ok and read.evaluation.sound
    assert "passed" not in read.model_dump()["evaluation"]

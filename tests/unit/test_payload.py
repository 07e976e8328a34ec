"""Raw model payloads to validated contracts."""

from __future__ import annotations

from veracity.contracts import JudgeOutput
from veracity.step_support.payload import validate_payload


def test_dict_payload_validates() -> None:
    payload = {"label": "refuted", "reason": "r", "evidence_id": "c1-e1", "quote": "q q q q"}
    output, error = validate_payload(payload, JudgeOutput)
    assert error is None and output.label == "refuted"


def test_fenced_json_text_validates() -> None:
    output, error = validate_payload('```json\n{"label": "unverifiable", "reason": "none"}\n```', JudgeOutput)
    assert error is None and output.evidence_id is None


def test_content_blocks_are_joined() -> None:
    blocks = [{"type": "text", "text": '{"label": "supported",'}, {"type": "text", "text": ' "reason": "x"}'}]
    output, error = validate_payload(blocks, JudgeOutput)
    assert error is None and output.label == "supported"


def test_errors_are_exact() -> None:
    _, error = validate_payload({"label": "probably", "reason": "x"}, JudgeOutput)
    assert "label" in error and "'supported', 'refuted' or 'unverifiable'" in error
    _, error = validate_payload("", JudgeOutput)
    assert "empty" in error
    _, error = validate_payload("{oops", JudgeOutput)
    assert "not valid JSON" in error
    _, error = validate_payload({"label": "supported", "reason": "x", "extra": 1}, JudgeOutput)
    assert "extra" in error
